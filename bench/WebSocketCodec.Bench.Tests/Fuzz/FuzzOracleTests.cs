using WebSocketCodec.Fuzz;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>Each oracle of the fuzzer can fail: fed a disagreeing pair, a throwing target, a loop that does not move or
/// a leaking pool, it reports a violation. Without these the zero of <see cref="FuzzSmokeTests"/> would prove nothing.</summary>
public class FuzzOracleTests
{
    private static readonly CorpusEntry Entry = new("test", [0x81, 0x00], WebSocketRole.Client);

    [Fact]
    public void FrameTracesThatDifferInAPayloadByteOrTheViolationDisagree()
    {
        FrameTrace a = Trace(ProtocolViolation.None, [1, 2, 3]);
        a.AssertSame(Trace(ProtocolViolation.None, [1, 2, 3]), "same");
        Assert.Contains("frame 0", Assert.Throws<OracleFailureException>(() => a.AssertSame(Trace(ProtocolViolation.None, [1, 2, 4]), "x")).Message);
        Assert.Contains("1002 vs 1009", Assert.Throws<OracleFailureException>(() =>
            Trace(ProtocolViolation.UnmaskedFrame, []).AssertSame(Trace(ProtocolViolation.FrameTooBig, []), "x")).Message);
        FrameTrace consumed = Trace(ProtocolViolation.None, []);
        consumed.Consumed = 3;
        FrameTrace other = Trace(ProtocolViolation.None, []);
        other.Consumed = 4;
        Assert.Throws<OracleFailureException>(() => consumed.AssertSame(other, "x"));
    }

    [Fact]
    public void TheFastAndGeneralDrivesOfOneDecoderAgreeAndADifferentInputDoesNot()
    {
        byte[] text = WireFrame.Final(WebSocketOpcode.Text, "Hello"u8, masked: true);
        byte[] binary = WireFrame.Final(WebSocketOpcode.Binary, "Hello"u8, masked: true);
        FrameTrace fast = DecoderDrives.FastWhole(WebSocketRole.Server, FrameDecoderOptions.Default, text);
        DecoderDrives.GeneralWhole(WebSocketRole.Server, FrameDecoderOptions.Default, text, new FuzzRng(1)).AssertSame(fast, "same");
        FrameTrace wrong = DecoderDrives.GeneralWhole(WebSocketRole.Server, FrameDecoderOptions.Default, binary, new FuzzRng(1));
        Assert.Throws<OracleFailureException>(() => wrong.AssertSame(fast, "fast and general"));
    }

    [Fact]
    public void SessionTracesThatDifferInTheCloseStatusDisagree()
    {
        byte[] close = WireFrame.Final(WebSocketOpcode.Close, WireFrame.ClosePayload(1000), masked: true);
        byte[] badClose = WireFrame.Final(WebSocketOpcode.Close, WireFrame.ClosePayload(1005), masked: true);
        SessionTrace good = SessionDrive.Run(WebSocketRole.Server, WebSocketSessionOptions.Default, close, [], -1);
        SessionDrive.Run(WebSocketRole.Server, WebSocketSessionOptions.Default, close, [1, 3], -1).AssertSame(good, "same");
        SessionTrace bad = SessionDrive.Run(WebSocketRole.Server, WebSocketSessionOptions.Default, badClose, [1, 3], -1);
        Assert.Equal((CloseStatus)1000, good.SentCloseStatus);
        Assert.Equal((CloseStatus)1002, bad.SentCloseStatus);
        Assert.Throws<OracleFailureException>(() => bad.AssertSame(good, "x"));
    }

    [Fact]
    public void AnUndocumentedExceptionIsAViolationAndADocumentedOneIsNot()
    {
        var runner = new FuzzRunner(7);
        FuzzViolation? violation = runner.Check(new ThrowingTarget(documented: false), Entry, [1, 2], new FuzzRng(1), index: 5);
        Assert.NotNull(violation);
        Assert.Contains("undocumented exception System.FormatException", violation.Message);
        Assert.Equal((7UL, 5L, "0102"), (violation.Seed, violation.Index, violation.Hex));
        Assert.Null(runner.Check(new ThrowingTarget(documented: true), Entry, [1, 2], new FuzzRng(1)));
    }

    [Fact]
    public void ARunCountsEveryViolationAndKeepsTheFirstOfEachKind()
    {
        TargetResult result = new FuzzRunner(3).Run(new ThrowingTarget(documented: false), 50);
        Assert.Equal(50, result.ViolationCount);
        Assert.Equal(5, result.Violations.Count);
        Assert.Single(result.Kinds);
    }

    [Fact]
    public void ALoopThatConsumesNothingOrRunsPastItsCapIsAHang()
    {
        var guard = new StepGuard("test loop", inputLength: 3, slack: 1);
        guard.Progress(1);
        Assert.Contains("consumed nothing", Assert.Throws<OracleFailureException>(() => guard.Progress(0)).Message);
        var capped = new StepGuard("test loop", inputLength: 3, slack: 1);
        for (int i = 0; i < 4; i++)
        {
            capped.Step();
        }

        Assert.Contains("more than 4 steps", Assert.Throws<OracleFailureException>(() => capped.Step()).Message);
        FuzzViolation? violation = new FuzzRunner(1).Check(new StuckTarget(), Entry, new byte[10], new FuzzRng(1));
        Assert.NotNull(violation);
        Assert.StartsWith("hang:", violation.Message);
    }

    [Fact]
    public void APoolWithAnArrayOutOrReturnedTwiceIsUnbalanced()
    {
        var pool = new BalanceCheckingPool();
        byte[] a = pool.Rent(100);
        Assert.Throws<OracleFailureException>(() => pool.AssertBalanced("with one out"));
        pool.Return(a);
        Assert.All(a, b => Assert.Equal(0xDD, b)); // scribbled over: a reader of a returned buffer sees garbage
        pool.AssertBalanced("after the return");
        pool.Return(a);
        Assert.Throws<OracleFailureException>(() => pool.AssertBalanced("after a double return"));
    }

    private static FrameTrace Trace(ProtocolViolation violation, byte[] payload)
    {
        var trace = new FrameTrace { Violation = violation };
        trace.Frames.Add(new FrameRecord(WebSocketOpcode.Text, true, 0, payload));
        return trace;
    }

    private sealed class ThrowingTarget(bool documented) : IFuzzTarget
    {
        public string Name => "throwing";

        public Mutator Mutator { get; } = new([Entry], frames: true);

        public bool IsDocumented(Exception exception) => documented && exception is FormatException;

        public void Run(CorpusEntry entry, byte[] input, FuzzContext context) => throw new FormatException("thrown on purpose");
    }

    private sealed class StuckTarget : IFuzzTarget
    {
        public string Name => "stuck";

        public Mutator Mutator { get; } = new([Entry], frames: true);

        public bool IsDocumented(Exception exception) => false;

        public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
        {
            var guard = new StepGuard("a loop that never consumes", input.Length);
            int offset = 0;
            while (offset < input.Length)
            {
                guard.Progress(0); // a decoder that keeps answering "consumed 0, not done"
            }
        }
    }
}
