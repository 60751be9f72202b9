using WebSocketCodec.Fuzz;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>The short fixed-seed fuzz run CI does: 20,000 inputs per target (every target of
/// <see cref="FuzzTargets.Names"/>), no violation (the session, inflate and akka targets check the pool's balance after
/// every drive), and the inputs reach the outcomes that make the oracles bite.</summary>
public class FuzzSmokeTests
{
    private const ulong Seed = 22;
    private const int Inputs = 20_000;

    [Theory]
    [InlineData("frames", new[] { "ok (frames)", "FrameTooBig", "InvalidTextUtf8", "UnexpectedContinuation", "ReservedOpcode", "NonMinimalLength" })]
    [InlineData("session", new[] { "Closed (peer's Close)", "Closed (peer's Close, empty)", "Open", "handler failed", "InvalidCloseStatus", "ExpectedContinuation" })]
    [InlineData("http1", new[] { "Done", "NeedMoreData", "InvalidData BadLineEnding", "InvalidData HeadTooLarge", "request accepted", "response accepted", "request refused 426" })]
    [InlineData("h2connect", new[] { "accepted", "refused 400", "refused 400 +version" })]
    [InlineData("h2response", new[] { "accepted", "refused: status", "refused: end of stream", "refused: extension", "refused: subprotocol" })]
    [InlineData("inflate", new[] { "ok", "ok, last message unfinished", "1007 (invalid)", "1009 (too big)", "seed inflated to its messages" })]
    [InlineData("negotiation", new[] { "server declined", "server accepted offer 0", "server accepted offer 1", "client accepted the answer", "client refused the answer" })]
    [InlineData("http101", new[] { "accepted", "refused 1", "refused 2", "refused 3", "refused 4", "refused 5", "refused 6" })]
    [InlineData("akka", new[] { "TransportClosed None sent -", "Closed None sent NormalClosure", "TransportClosed None sent UnsupportedData", "ProtocolViolation InvalidTextUtf8 sent InvalidPayloadData" })]
    public void AFixedSeedRunFindsNoViolation(string target, string[] reached)
    {
        var runner = new FuzzRunner(Seed);
        TargetResult result = runner.Run(FuzzTargets.Create(target), Inputs);
        Assert.Equal(Inputs, result.Inputs);
        Assert.True(result.ViolationCount == 0, string.Join("\n", result.Violations));
        foreach (string outcome in reached)
        {
            Assert.True(result.Outcomes.ContainsKey(outcome), $"no input reached '{outcome}': {string.Join(", ", result.Outcomes.Keys)}");
        }
    }

    [Fact]
    public void EveryTargetIsSmokeTested()
    {
        string[] tested = [.. typeof(FuzzSmokeTests).GetMethod(nameof(AFixedSeedRunFindsNoViolation))!
            .GetCustomAttributes(typeof(InlineDataAttribute), false).Cast<InlineDataAttribute>().Select(a => (string)a.GetData(null!).First()[0])];
        Assert.Equal(FuzzTargets.Names.Order(), tested.Order());
    }

    [Fact]
    public void AnInputReplaysFromSeedTargetAndIndexAlone()
    {
        var target = new FrameTarget();
        (CorpusEntry entry, byte[] first) = target.Mutator.Next(FuzzRng.ForInput(Seed, "frames", 12_345));
        (CorpusEntry again, byte[] second) = target.Mutator.Next(FuzzRng.ForInput(Seed, "frames", 12_345));
        (_, byte[] other) = target.Mutator.Next(FuzzRng.ForInput(Seed, "frames", 12_346));
        Assert.Equal(entry, again);
        Assert.Equal(first, second);
        Assert.NotEqual(first, other);
    }
}
