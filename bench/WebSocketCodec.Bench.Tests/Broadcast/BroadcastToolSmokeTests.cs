using WebSocketCodec.Broadcast;
using WebSocketCodec.Broadcast.Run;

namespace WebSocketCodec.Bench.Tests.Broadcast;

/// <summary>The broadcast benchmark in a tiny mode inside <c>dotnet test</c>: 20 websockets in a client process, 5 + 20
/// broadcasts of 64 B from each variant's server process. Asserts that every websocket got every broadcast in order,
/// the servers measured the window, and the page and CSV were written; no time or size is asserted.</summary>
public sealed class BroadcastToolSmokeTests
{
    [Fact]
    public async Task EveryVariantDeliversEveryBroadcastInOrderAndTheReportIsWritten()
    {
        var options = new BroadcastOptions { WebSockets = [20], Payloads = [64], WarmUp = 5, Broadcasts = 20, Repeat = 1 };
        IReadOnlyList<BroadcastMeasurement> results = await BroadcastRunner.RunAsync(options, cancellationToken: RawHttp.Timeout(120));

        Assert.Equal(BroadcastVariants.All, results.Select(r => r.Variant));
        foreach (BroadcastMeasurement result in results)
        {
            Assert.True(result.IsClean, result.ToString());
            Assert.Equal(20 * 25, result.Received); // every websocket, every broadcast (the client checks each one's order)
            Assert.Equal(0, result.OutOfOrder);
            Assert.Equal(20, result.Broadcasts); // the server measured exactly the measured ones
            Assert.True(result.CpuMs > 0 && result.DeliveryP99Ns >= result.DeliveryP50Ns && result.DeliveryP50Ns > 0, result.ToString());
        }

        string directory = Directory.CreateTempSubdirectory("broadcast-smoke").FullName;
        try
        {
            string prefix = Path.Combine(directory, "broadcast-smoke");
            await BroadcastReport.WriteAsync(prefix, results, options, "broadcast --smoke");
            string page = await File.ReadAllTextAsync(prefix + ".md");
            string csv = await File.ReadAllTextAsync(prefix + ".csv");
            foreach (string variant in BroadcastVariants.All)
            {
                Assert.Contains($"| 20 | 64 B | {variant} |", page, StringComparison.Ordinal);
                Assert.Contains($",20,64,{variant},20,", csv, StringComparison.Ordinal);
            }

            Assert.Contains("- 20 websockets, 64 B: group ", page, StringComparison.Ordinal);
            Assert.Equal("`broadcast --smoke`", ResultsStamp.Parse(page)?.Command); // the page is stamped
            Assert.Equal(4, csv.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length); // the header and one row per run
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public void TheTargetsAreCheckedOnTheMedians()
    {
        static BroadcastMeasurement Result(string variant, int run, double cpuMs, long allocated) => new()
        {
            Variant = variant, PayloadBytes = 64, WebSockets = 1000, Run = run, Broadcasts = 100, CpuMs = cpuMs, UserCpuMs = 40, AllocatedBytes = allocated,
            Received = 1000 * 100, Expected = 1000 * 100,
        };
        BroadcastMeasurement[] results =
        [
            Result(BroadcastVariants.Group, 1, 40, 0), Result(BroadcastVariants.SenderLoop, 1, 90, 0), Result(BroadcastVariants.AspNetLoop, 1, 100, 0),
            Result(BroadcastVariants.Group, 2, 45, 5600), Result(BroadcastVariants.SenderLoop, 2, 80, 0), Result(BroadcastVariants.AspNetLoop, 2, 100, 0),
            Result(BroadcastVariants.Group, 3, 500, 0), Result(BroadcastVariants.SenderLoop, 3, 85, 0), Result(BroadcastVariants.AspNetLoop, 3, 80, 0),
        ];

        string page = BroadcastReport.ToMarkdown(results, new BroadcastOptions(), "broadcast");

        // Medians (µs per broadcast): group 450, sender-loop 850, aspnet-loop 1000 (user 400 each); group allocates 0 B (one run of three
        // 0.056) per recipient.
        Assert.Contains("| 1,000 | 64 B | group | 450 | 0.45 | 0.53 | 400 | 1.00 | 0.00 | 0 |", page, StringComparison.Ordinal);
        Assert.Contains("- 1,000 websockets, 64 B: group 0.45× aspnet-loop (≤ 0.5: **met**); 0.53× sender-loop (< 1: **met**); 0.00 B allocated per recipient", page, StringComparison.Ordinal);
        Assert.Contains("aspnet-loop's kernel time alone (600 µs, nearly all of it the sends) is 0.60× its total", page, StringComparison.Ordinal);

        // The CSV reads back into the same page.
        string again = BroadcastReport.ToMarkdown(BroadcastReport.FromCsv(BroadcastReport.ToCsv(results)), new BroadcastOptions(), "broadcast");
        Assert.Equal(page, again);
    }
}
