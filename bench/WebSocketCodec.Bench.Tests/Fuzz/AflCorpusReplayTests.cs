using WebSocketCodec.Fuzz;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>
/// The corpora the AFL++ runs committed (<c>bench/WebSocketCodec.Fuzz/afl/corpus/TARGET</c>, minimised by afl-cmin),
/// replayed through every target in process the way the AFL harness runs them (<see cref="AflInput"/>: the entry and
/// the generator come from the bytes), so each file passes every oracle on every build, without afl-fuzz.
/// </summary>
public class AflCorpusReplayTests
{
    /// <summary>Every target of the fuzz program that has a committed corpus: a target is replayed as soon as
    /// <c>afl/run.sh TARGET</c> commits one (the targets that must have one are listed below, so none goes missing
    /// unseen).</summary>
    public static TheoryData<string> Targets() => [.. FuzzTargets.Names.Where(name => Directory.Exists(CorpusDirectory(name)))];

    [Theory]
    [MemberData(nameof(Targets))]
    public void EveryCommittedAflInputPassesEveryOracle(string target)
    {
        string directory = CorpusDirectory(target);
        string[] files = Directory.GetFiles(directory);
        Assert.NotEmpty(files);
        var runner = new FuzzRunner(0);
        IFuzzTarget fuzzTarget = FuzzTargets.Create(target);
        var outcomes = new Dictionary<string, long>();
        foreach (string file in files)
        {
            byte[] input = File.ReadAllBytes(file);
            FuzzViolation? violation = runner.Check(fuzzTarget, AflInput.EntryFor(input), input, AflInput.RngFor(target, input), outcomes: outcomes);
            Assert.True(violation is null, $"{Path.GetFileName(file)}: {violation}");
        }

        // A minimised corpus keeps one input per path it found: it reaches more than one outcome of the target.
        Assert.True(outcomes.Count > 1, $"{files.Length} inputs reached only: {string.Join(", ", outcomes.Keys)}");
    }

    [Theory]
    [InlineData("frames")]
    [InlineData("session")]
    [InlineData("inflate")]
    [InlineData("negotiation")]
    public void TheCorporaOfTheTwentyMinuteRunsAreCommitted(string target)
    {
        string directory = CorpusDirectory(target);
        Assert.True(Directory.Exists(directory), $"{directory} is missing");
        Assert.True(Directory.GetFiles(directory).Length >= 10, $"{directory} holds {Directory.GetFiles(directory).Length} inputs");
    }

    [Fact]
    public void AnAflInputRunsTheSameWayEveryTime()
    {
        byte[] masked = [0x81, 0x82, 1, 2, 3, 4, 0x49, 0x6B];
        byte[] unmasked = [0x81, 0x02, 0x48, 0x69];
        Assert.Equal(WebSocketRole.Server, AflInput.EntryFor(masked).Role);
        Assert.Equal(WebSocketRole.Client, AflInput.EntryFor(unmasked).Role);
        Assert.Equal(WebSocketRole.Client, AflInput.EntryFor([]).Role);
        Assert.Equal(AflInput.RngFor("frames", masked).NextUInt64(), AflInput.RngFor("frames", [.. masked]).NextUInt64());
        Assert.NotEqual(AflInput.RngFor("frames", masked).NextUInt64(), AflInput.RngFor("session", masked).NextUInt64());
        Assert.NotEqual(AflInput.RngFor("frames", masked).NextUInt64(), AflInput.RngFor("frames", unmasked).NextUInt64());
    }

    private static string CorpusDirectory(string target) => Path.Combine(AppContext.BaseDirectory, "afl-corpus", target);
}
