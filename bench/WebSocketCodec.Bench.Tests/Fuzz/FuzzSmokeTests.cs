using WebSocketCodec.Fuzz;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>The short fixed-seed fuzz run CI does: 20,000 inputs per target, no violation (the session target checks
/// the pool's balance after every drive), and the inputs reach the outcomes that make the oracles bite.</summary>
public class FuzzSmokeTests
{
    private const ulong Seed = 22;
    private const int Inputs = 20_000;

    [Theory]
    [InlineData("frames", new[] { "ok (frames)", "FrameTooBig", "InvalidTextUtf8", "UnexpectedContinuation", "ReservedOpcode", "NonMinimalLength" })]
    [InlineData("session", new[] { "Closed (peer's Close)", "Closed (peer's Close, empty)", "Open", "handler failed", "InvalidCloseStatus", "ExpectedContinuation" })]
    [InlineData("http1", new[] { "Done", "NeedMoreData", "InvalidData BadLineEnding", "InvalidData HeadTooLarge", "request accepted", "response accepted", "request refused 426" })]
    [InlineData("h2connect", new[] { "accepted", "refused 400", "refused 400 +version" })]
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
