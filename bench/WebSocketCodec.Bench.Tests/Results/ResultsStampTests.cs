using System.Text.RegularExpressions;
using WebSocketCodec.Bench;

namespace WebSocketCodec.Bench.Tests.Results;

/// <summary>Every file under <c>bench/results</c> names where it was measured: each page (.md, README.md aside)
/// carries the stamp block (commit, date, CPU, cores, runtime, OS, command; bench/results/README.md), and each other
/// file (JSON, CSV, charts, logs, state) is covered by a stamped page: its own name with <c>.md</c> or
/// <c>.stamp.md</c>, the page a chart (<c>-throughput.svg</c>, <c>-latency.svg</c>, <c>-memory.svg</c>) was drawn
/// from, or the BenchmarkDotNet markdown report beside a <c>-report.csv</c>.</summary>
public sealed partial class ResultsStampTests
{
    private static readonly string Results = Path.Combine(RepositoryRoot(), "bench", "results");

    public static TheoryData<string> Pages() => [.. Directory.EnumerateFiles(Results, "*.md").Select(f => Path.GetFileName(f)).Where(n => n != "README.md").Order(StringComparer.Ordinal)];

    public static TheoryData<string> DataFiles() => [.. Directory.EnumerateFiles(Results).Select(f => Path.GetFileName(f)).Where(n => !n.EndsWith(".md", StringComparison.Ordinal)).Order(StringComparer.Ordinal)];

    [Theory]
    [MemberData(nameof(Pages))]
    public void EveryPageCarriesAStampWithEveryField(string page)
    {
        Assert.Equal([], Problems(File.ReadAllText(Path.Combine(Results, page))));
    }

    [Theory]
    [MemberData(nameof(DataFiles))]
    public void EveryOtherFileIsCoveredByAStampedPage(string file)
    {
        string[] candidates = [.. CoveringPages(file)];
        string? page = candidates.FirstOrDefault(c => File.Exists(Path.Combine(Results, c)));
        Assert.True(page is not null, $"{file}: none of {string.Join(", ", candidates)} exists");
        Assert.Equal([], Problems(File.ReadAllText(Path.Combine(Results, page))));
    }

    [Fact]
    public void ThisProcesssStampReadsBackAndGoesBelowTheTitle()
    {
        var stamp = ResultsStamp.Current("dotnet run -- --x 1");
        string page = stamp.StampPage("# Title\n\nbody\n");

        Assert.StartsWith("# Title\n\n" + ResultsStamp.Marker + "\n- commit: ", page, StringComparison.Ordinal);
        Assert.EndsWith("- command: `dotnet run -- --x 1`\n\nbody\n", page, StringComparison.Ordinal);
        Assert.Equal(stamp with { Command = "`dotnet run -- --x 1`" }, ResultsStamp.Parse(page));
        Assert.Equal([], Problems(page));
        Assert.Equal(ResultsStamp.MachineCores().ToString(System.Globalization.CultureInfo.InvariantCulture), stamp.Cores);
        Assert.True(ResultsStamp.MachineCores() >= Environment.ProcessorCount, "the machine has at least the cores this process may use");
    }

    [Theory]
    [InlineData("- cpu: AMD EPYC\n", "- cpu: \n")] // a field left empty
    [InlineData("- runtime: .NET 10.0.0\n", "")] // a line missing
    [InlineData("- commit: 0123abc\n", "- commit: yesterday's\n")] // a commit that is no hash
    [InlineData("- date: 2026-11-27 07:40 UTC\n", "- date: last week\n")] // no date
    [InlineData("- cores: 2\n", "- cores: two\n")] // no number
    [InlineData("- command: `x`\n", "- command: x\n")] // no command in backticks
    [InlineData("- command: `x`\n", "- command: none\n")] // no command, and no word of what the page is made from
    [InlineData(ResultsStamp.Marker + "\n", "")] // no marker: no stamp
    public void APageWithoutAFieldFailsTheCheck(string line, string replacement)
    {
        string page = "# T\n\n" + ResultsStamp.Marker + "\n- commit: 0123abc\n- date: 2026-11-27 07:40 UTC\n- cpu: AMD EPYC\n- cores: 2\n- runtime: .NET 10.0.0\n- os: Linux\n- command: `x`\n\nbody\n";
        Assert.Equal([], Problems(page));
        Assert.Contains(line, page, StringComparison.Ordinal);

        Assert.NotEqual([], Problems(page.Replace(line, replacement, StringComparison.Ordinal)));
    }

    [Fact]
    public void AChartADataFileAndABenchmarkCsvFindTheirPages()
    {
        Assert.Equal(["perf-h1-plain-throughput.md", "perf-h1-plain-throughput.stamp.md", "perf-h1-plain.md"], CoveringPages("perf-h1-plain-throughput.svg"));
        Assert.Equal(["scale-19k.md", "scale-19k.stamp.md"], CoveringPages("scale-19k.json"));
        Assert.Equal(["scale-19k-memory.md", "scale-19k-memory.stamp.md", "scale-19k.md"], CoveringPages("scale-19k-memory.svg"));
        Assert.Equal(["DecodeBenchmarks-report.md", "DecodeBenchmarks-report.stamp.md", "DecodeBenchmarks-report-github.md"], CoveringPages("DecodeBenchmarks-report.csv"));
    }

    /// <summary>What is wrong with the page's stamp (nothing: empty).</summary>
    private static List<string> Problems(string page)
    {
        ResultsStamp? stamp = ResultsStamp.Parse(page);
        if (stamp is null)
        {
            return [$"no stamp block ({ResultsStamp.Marker} and then {string.Join(", ", ResultsStamp.Keys.Select(k => $"- {k}: ..."))}, one a line)"];
        }

        var problems = new List<string>();
        if (!CommitPattern().IsMatch(stamp.Commit))
        {
            problems.Add($"commit '{stamp.Commit}' does not start with a hash");
        }

        if (!DatePattern().IsMatch(stamp.Date))
        {
            problems.Add($"date '{stamp.Date}' is not yyyy-MM-dd...");
        }

        if (stamp.Cores != ResultsStamp.NotRecorded && !int.TryParse(stamp.Cores, out _))
        {
            problems.Add($"cores '{stamp.Cores}' is neither a number nor '{ResultsStamp.NotRecorded}'");
        }

        if (!CommandPattern().IsMatch(stamp.Command))
        {
            problems.Add($"command '{stamp.Command}' is neither a command in backticks nor 'none (...)' for a page written by hand");
        }

        return problems;
    }

    /// <summary>The pages that may cover <paramref name="file"/>, in order of preference.</summary>
    private static List<string> CoveringPages(string file)
    {
        string stem = Path.GetFileNameWithoutExtension(file);
        var pages = new List<string> { stem + ".md", stem + ".stamp.md" };
        foreach (string chart in (string[])["-throughput", "-latency", "-memory"])
        {
            if (file.EndsWith(chart + ".svg", StringComparison.Ordinal))
            {
                pages.Add(stem[..^chart.Length] + ".md");
            }
        }

        if (file.EndsWith("-report.csv", StringComparison.Ordinal))
        {
            pages.Add(stem + "-github.md");
        }

        return pages;
    }

    internal static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "WebSocketCodec.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException("not inside the repository");
    }

    [GeneratedRegex("^[0-9a-f]{7,40}\\b")]
    private static partial Regex CommitPattern();

    [GeneratedRegex("^(`[^`]+`|none \\(.+\\))")]
    private static partial Regex CommandPattern();

    [GeneratedRegex("^\\d{4}-\\d{2}-\\d{2}")]
    private static partial Regex DatePattern();
}
