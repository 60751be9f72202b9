using WebSocketCodec.Benchmarks;

namespace WebSocketCodec.Bench.Tests.Benchmarks;

/// <summary>BenchmarkDotNet's reports reach bench/results stamped: the markdown report gets the stamp block at its top,
/// the CSV beside it is copied as it is, and a report an earlier run left in the artifacts is not copied (it would
/// be stamped with a commit it was not measured at).</summary>
public sealed class ReportCopyTests
{
    [Fact]
    public void OnlyThisRunsReportsAreCopiedAndTheMarkdownIsStamped()
    {
        string root = Directory.CreateTempSubdirectory("report-copy").FullName;
        try
        {
            string artifacts = Path.Combine(BenchmarkConfigs.ArtifactsPath(root), "results");
            Directory.CreateDirectory(artifacts);
            string old = Path.Combine(artifacts, "WebSocketCodec.Benchmarks.OldBenchmarks-report-github.md");
            File.WriteAllText(old, "old\n");
            File.SetLastWriteTimeUtc(old, DateTime.UtcNow.AddHours(-1));
            DateTime started = DateTime.UtcNow.AddSeconds(-1);
            File.WriteAllText(Path.Combine(artifacts, "WebSocketCodec.Benchmarks.NewBenchmarks-report-github.md"), "```\nBenchmarkDotNet v0.14.0\n```\n| Method |\n");
            File.WriteAllText(Path.Combine(artifacts, "WebSocketCodec.Benchmarks.NewBenchmarks-report.csv"), "Method\nOurs\n");

            ReportCopy.Run(root, "WebSocketCodec.Benchmarks.", started, "dotnet run -- --filter *New*");

            string results = Path.Combine(root, "bench", "results");
            Assert.Equal(["NewBenchmarks-report-github.md", "NewBenchmarks-report.csv"], Directory.EnumerateFiles(results).Select(f => Path.GetFileName(f)).Order(StringComparer.Ordinal));
            string page = File.ReadAllText(Path.Combine(results, "NewBenchmarks-report-github.md"));
            Assert.StartsWith(ResultsStamp.Marker + "\n", page, StringComparison.Ordinal);
            Assert.EndsWith("```\nBenchmarkDotNet v0.14.0\n```\n| Method |\n", page, StringComparison.Ordinal);
            Assert.Equal("`dotnet run -- --filter *New*`", ResultsStamp.Parse(page)?.Command);
            Assert.Equal("Method\nOurs\n", File.ReadAllText(Path.Combine(results, "NewBenchmarks-report.csv")));
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }
}
