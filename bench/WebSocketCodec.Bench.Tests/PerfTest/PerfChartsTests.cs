using System.Diagnostics;
using System.Text.Json;
using WebSocketCodec.PerfTest;
using Xunit.Abstractions;

namespace WebSocketCodec.Bench.Tests.PerfTest;

/// <summary><c>bench/charts</c> renders the perf tool's JSON (from a smoke run here) as SVG charts: installed with
/// <c>npm ci</c> from its lock file, so the chart step the reports rely on never rots.</summary>
public sealed class PerfChartsTests(ITestOutputHelper output)
{
    [SkippableFact]
    public async Task ASmokeRunsJsonBecomesThroughputAndLatencyCharts()
    {
        string charts = Path.Combine(AppContext.BaseDirectory, "charts");
        string? skip = await NpmInstall.EnsureAsync(charts, "vega-lite");
        Skip.If(skip is not null, skip);

        var options = new PerfOptions { Payload = 64, Window = 16, Warmup = TimeSpan.FromSeconds(0.2), Duration = TimeSpan.FromSeconds(0.4), Pin = false };
        PerfResult[] results = [await PerfRunner.RunVariantAsync(Variants.Ours, options), await PerfRunner.RunVariantAsync(Variants.Raw, options)];
        string folder = Directory.CreateTempSubdirectory("perf-charts-").FullName;
        try
        {
            await File.WriteAllTextAsync(Path.Combine(folder, "perf-smoke.json"), JsonSerializer.Serialize(results));
            var (exit, log) = await NodeFixture.RunAsync("node", $"render.mjs {folder}", charts, TimeSpan.FromMinutes(1));
            output.WriteLine(log);
            Assert.Equal(0, exit);
            foreach (string chart in new[] { "perf-smoke-throughput.svg", "perf-smoke-latency.svg" })
            {
                string svg = await File.ReadAllTextAsync(Path.Combine(folder, chart));
                Assert.StartsWith("<svg", svg, StringComparison.Ordinal);
                Assert.Contains("ours", svg, StringComparison.Ordinal);
                Assert.Contains("raw", svg, StringComparison.Ordinal);
            }
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
