using WebSocketCodec.Fuzz;
using WebSocketCodec.Fuzz.Model;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>The reference-model oracle catches the bugs the agreement oracles cannot (a decoder that is wrong the same
/// way on every path): wrong unmasking, accepting invalid UTF-8, a status no broken rule justifies, failing a valid
/// prefix early, a session that misreports the peer's Close.</summary>
public class ModelOracleTests
{
    private static readonly FrameDecoderOptions Options = FrameDecoderOptions.Default;

    [Fact]
    public void TheLibraryPassesOnTheRfcExamples()
    {
        byte[] masked = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58];
        ModelOracle.CheckFrames(Model(masked), DecoderDrives.FastWhole(WebSocketRole.Server, Options, masked), "RFC 6455 §5.7");
        byte[] fragmented = [0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f];
        ModelOracle.CheckFrames(
            ReferenceModel.Read(fragmented, ModelOracle.For(WebSocketRole.Client, Options)),
            DecoderDrives.FastWhole(WebSocketRole.Client, Options, fragmented), "RFC 6455 §5.7");
        var deflate = Options with { PerMessageDeflate = true };
        byte[] compressed = [0x41, 0x03, 0xf2, 0x48, 0xcd, 0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00];
        ModelOracle.CheckFrames(
            ReferenceModel.Read(compressed, ModelOracle.For(WebSocketRole.Client, deflate)),
            DecoderDrives.FastWhole(WebSocketRole.Client, deflate, compressed), "RFC 7692 §7.2.3.1");
    }

    [Fact]
    public void WrongUnmaskingIsCaught()
    {
        byte[] input = WireFrame.Final(WebSocketOpcode.Binary, [1, 2, 3, 4, 5, 6, 7], masked: true);
        FrameTrace right = DecoderDrives.FastWhole(WebSocketRole.Server, Options, input);
        ModelOracle.CheckFrames(Model(input), right, "right");

        // A decoder that restarts the key at every byte (octet i XOR key[0]) instead of rotating it (key[i MOD 4]).
        byte[] payload = [.. input.AsSpan(6).ToArray().Select(b => (byte)(b ^ WireFrame.MaskKey[0]))];
        var wrong = new FrameTrace { Consumed = right.Consumed };
        wrong.Frames.Add(new FrameRecord(WebSocketOpcode.Binary, true, 0, payload));
        string message = Assert.Throws<OracleFailureException>(() => ModelOracle.CheckFrames(Model(input), wrong, "wrong")).Message;
        Assert.Contains("disagree at frame 0", message);
    }

    [Fact]
    public void AcceptingInvalidUtf8IsCaught()
    {
        // A text frame "A" then 0xFF: a decoder that does not check UTF-8 (validation off) accepts it.
        byte[] input = WireFrame.Final(WebSocketOpcode.Text, [0x41, 0xFF], masked: true);
        FrameTrace lax = DecoderDrives.FastWhole(WebSocketRole.Server, Options with { ValidateUtf8 = false }, input);
        Assert.Equal(ProtocolViolation.None, lax.Violation);
        string message = Assert.Throws<OracleFailureException>(() => ModelOracle.CheckFrames(Model(input), lax, "lax")).Message;
        Assert.Contains("the library delivers 1 frames, the model 0", message);
        ModelOracle.CheckFrames(Model(input), DecoderDrives.FastWhole(WebSocketRole.Server, Options, input), "strict");
    }

    [Fact]
    public void AStatusNoBrokenRuleJustifiesIsCaught()
    {
        // Invalid UTF-8 (1007) reported as a bad close status (1002).
        byte[] input = WireFrame.Final(WebSocketOpcode.Text, [0xFF], masked: true);
        var trace = new FrameTrace { Violation = ProtocolViolation.InvalidCloseStatus, Consumed = 0 };
        Assert.Contains("none of the rules broken justifies", Assert.Throws<OracleFailureException>(() => ModelOracle.CheckFrames(Model(input), trace, "x")).Message);

        // Accepting a Close with 1005 on the wire.
        byte[] close = WireFrame.Final(WebSocketOpcode.Close, WireFrame.ClosePayload(1005), masked: true);
        var accepted = new FrameTrace { Consumed = close.Length };
        accepted.Frames.Add(new FrameRecord(WebSocketOpcode.Close, true, 0, WireFrame.ClosePayload(1005)));
        Assert.Throws<OracleFailureException>(() => ModelOracle.CheckFrames(Model(close), accepted, "x"));
    }

    [Fact]
    public void FailingAValidPrefixEarlyIsCaughtAndFailingAProvenOneIsNot()
    {
        // A text frame of 4 bytes cut after "€"'s first two bytes: nothing is proven yet.
        byte[] cut = WireFrame.Final(WebSocketOpcode.Text, [0xE2, 0x82, 0xAC, 0x41], masked: true).AsSpan(0, 8).ToArray();
        Assert.Throws<OracleFailureException>(() => ModelOracle.CheckEarlyFailure(Model(cut), ProtocolViolation.InvalidTextUtf8, "early"));
        ModelOracle.CheckEarlyFailure(Model(cut), ProtocolViolation.None, "waiting");

        // Cut after E2 C0: proven, so failing now (1007) and waiting are both right; 1002 is not.
        byte[] bad = WireFrame.Final(WebSocketOpcode.Text, [0xE2, 0xC0, 0xAC, 0x41], masked: true).AsSpan(0, 8).ToArray();
        ModelOracle.CheckEarlyFailure(Model(bad), ProtocolViolation.InvalidTextUtf8, "early");
        ModelOracle.CheckEarlyFailure(Model(bad), ProtocolViolation.None, "waiting");
        Assert.Throws<OracleFailureException>(() => ModelOracle.CheckEarlyFailure(Model(bad), ProtocolViolation.InvalidCloseStatus, "early"));
    }

    [Fact]
    public void ASessionThatMisreportsThePeersCloseOrFailsWithoutCauseIsCaught()
    {
        byte[] close = WireFrame.Final(WebSocketOpcode.Close, WireFrame.ClosePayload(4001, "bye"), masked: true);
        SessionTrace good = SessionDrive.Run(WebSocketRole.Server, WebSocketSessionOptions.Default, close, [], -1);
        ModelVerdict model = Model(close);
        ModelOracle.CheckSession(model, good, -1, "good");
        good.ReceivedCloseStatus = CloseStatus.NormalClosure;
        Assert.Throws<OracleFailureException>(() => ModelOracle.CheckSession(model, good, -1, "misread"));

        byte[] text = WireFrame.Final(WebSocketOpcode.Text, "ok"u8, masked: true);
        SessionTrace failed = SessionDrive.Run(WebSocketRole.Server, WebSocketSessionOptions.Default, text, [], 0);
        ModelOracle.CheckSession(Model(text), failed, 0, "handler threw: 1011");
        Assert.Throws<OracleFailureException>(() => ModelOracle.CheckSession(Model(text), failed, -1, "1011 without cause"));

        byte[] badText = WireFrame.Final(WebSocketOpcode.Text, [0xC3], masked: true);
        SessionTrace lax = SessionDrive.Run(WebSocketRole.Server, WebSocketSessionOptions.Default with { ValidateUtf8 = false }, badText, [], -1);
        Assert.Throws<OracleFailureException>(() => ModelOracle.CheckSession(Model(badText), lax, -1, "lax session"));
    }

    [Fact]
    public void AValidStreamPassesTheFrameAndSessionTargetsWithTheModelOracle()
    {
        // No false alarm: a text message then a Close, under 16 draws of options and cut points each.
        var runner = new FuzzRunner(5);
        byte[] input = [.. WireFrame.Final(WebSocketOpcode.Text, "Hello"u8, masked: true), .. WireFrame.Final(WebSocketOpcode.Close, WireFrame.ClosePayload(1000), masked: true)];
        var entry = new CorpusEntry("hello", input, WebSocketRole.Server);
        foreach (string target in new[] { "frames", "session" })
        {
            for (ulong draw = 0; draw < 16; draw++)
            {
                FuzzViolation? violation = runner.Check(FuzzTargets.Create(target), entry, input, new FuzzRng(draw));
                Assert.True(violation is null, violation?.ToString());
            }
        }
    }

    private static ModelVerdict Model(byte[] input) => ReferenceModel.Read(input, ModelOracle.For(WebSocketRole.Server, Options));
}
