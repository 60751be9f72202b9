using WebSocketCodec.PerfTest;
using WebSocketCodec.Scale;

namespace WebSocketCodec.Bench.Tests.Scale;

/// <summary>The scale tool's smoke mode inside <c>dotnet test</c>: 200 websockets from 2 client processes and 2 source
/// addresses held 3 s on one server process, ours on the endpoint path and the raw-upgrade byte echo. Asserts that
/// nothing failed, every batch's echoes came back, every close exchange completed, and the numbers are there; no time or
/// memory size is asserted.</summary>
public sealed class ScaleToolSmokeTests
{
    [Fact]
    public async Task ManyIdleWebSocketsOpenEchoEveryBatchAndClose()
    {
        ScaleOptions options = Smoke([Variants.OursEndpointMessages, Variants.RawUpgrade], [ScaleRunner.Workstation]);
        IReadOnlyList<ScaleResult> results = await ScaleRunner.RunAsync(options, cancellationToken: RawHttp.Timeout(120));

        Assert.Equal(options.Variants, results.Select(r => r.Variant));
        foreach (ScaleResult result in results)
        {
            Assert.True(result.FailureCount == 0, result + " failures: " + string.Join(", ", result.Failures.Select(f => $"{f.Key} x{f.Value}")));
            Assert.Equal(200, result.Open);
            Assert.Equal(2, result.SourceAddresses);
            Assert.Equal("workstation", result.Gc);
            Assert.True(result.Batches >= 200 && result.Sent >= 5 * result.Batches, result.ToString()); // every websocket sent a batch
            Assert.Equal(result.Sent, result.Received); // every echo of every batch came back
            Assert.Equal(200, result.ClosedCleanly);
            Assert.True(result.HandshakeP50Ms > 0 && result.HandshakeP99Ms >= result.HandshakeP50Ms, result.ToString());
            Assert.True(result.RoundTripP50Ms > 0 && result.RoundTripP99Ms >= result.RoundTripP50Ms && result.RoundTripMaxMs >= result.RoundTripP99Ms, result.ToString());
            Assert.True(result.RssBaseline > 0 && result.RssOpen > 0 && result.RssClosed > 0 && result.HeapOpen > 0, result.ToString());
            Assert.True(result.ServerCpuSeconds > 0, result.ToString());
        }

        string page = ScaleReport.ToMarkdown(results, options, "scale --smoke");
        Assert.Contains("| ours-endpoint-messages | workstation (1 heap) | 200 | 0 |", page, StringComparison.Ordinal);
        Assert.Contains("endpoint path (ours-endpoint-messages)", page, StringComparison.Ordinal);
        Assert.Contains("None: every websocket opened", page, StringComparison.Ordinal);
    }

    [SkippableFact]
    public async Task BunServesTheSameLoadAndReportsItsMemoryAndCpu()
    {
        string? skip = PeerServers.Unavailable(Variants.Bun) ?? await NpmInstall.EnsureAsync(PeerServers.Folder, PeerServers.BunPackage);
        Skip.If(skip is not null, skip);

        ScaleOptions options = Smoke([Variants.Bun], [ScaleRunner.Workstation, ScaleRunner.Server]);
        IReadOnlyList<ScaleResult> results = await ScaleRunner.RunAsync(options, cancellationToken: RawHttp.Timeout(120));

        ScaleResult result = Assert.Single(results); // no .NET GC to vary: one run, not one per GC mode
        Assert.True(result.FailureCount == 0, result + " failures: " + string.Join(", ", result.Failures.Select(f => $"{f.Key} x{f.Value}")));
        Assert.Equal(200, result.Open);
        Assert.Equal("none", result.Gc);
        Assert.Equal(result.Sent, result.Received);
        Assert.Equal(200, result.ClosedCleanly);
        Assert.True(result.RssBaseline > 0 && result.RssOpen > 0 && result.HeapOpen > 0 && result.ServerCpuSeconds > 0, result.ToString());
        Assert.Contains("| bun | none (0 heaps) | 200 | 0 |", ScaleReport.ToMarkdown(results, options, "scale --smoke"), StringComparison.Ordinal);
    }

    /// <summary>200 websockets from 2 client processes and 2 source addresses, held 3 s, a batch every 0.5-1 s.</summary>
    private static ScaleOptions Smoke(string[] variants, string[] gcModes) => new()
    {
        Variants = variants,
        GcModes = gcModes,
        WebSockets = 200,
        ClientProcesses = 2,
        SourcesPerClient = 1,
        Hold = TimeSpan.FromSeconds(3),
        MinInterval = TimeSpan.FromSeconds(0.5),
        MaxInterval = TimeSpan.FromSeconds(1),
    };

    [Fact]
    public void TargetsAreCheckedOnTheMedianAgainstRawUpgrade()
    {
        static ScaleResult Result(string variant, int run, long bytesPerWebSocket) => new()
        {
            Variant = variant, Gc = "server", Run = run, WebSockets = 1000, Open = 1000, RssBaseline = 0, RssOpen = bytesPerWebSocket * 1000,
        };
        ScaleResult[] results =
        [
            Result(Variants.RawUpgrade, 1, 10 * 1024), Result(Variants.RawUpgrade, 2, 11 * 1024), Result(Variants.RawUpgrade, 3, 30 * 1024),
            Result(Variants.OursEndpointMessages, 1, 12 * 1024), Result(Variants.OursEndpointMessages, 2, 13 * 1024), Result(Variants.OursEndpointMessages, 3, 99 * 1024),
            Result(Variants.Ours, 1, 7 * 1024),
        ];

        string page = ScaleReport.ToMarkdown(results, new ScaleOptions(), "scale", before: [Result(Variants.Ours, 1, 9 * 1024)]);

        // Medians: raw-upgrade 11 KiB, endpoint 13 KiB <= 11 + 2 and <= 16: met; the fast path's 7 KiB > 6: not met.
        Assert.Contains("server GC, endpoint path (ours-endpoint-messages): 13.0 KiB; target <= raw-upgrade 11.0 + 2 = 13.0 and <= 16 KiB: **met**", page, StringComparison.Ordinal);
        Assert.Contains("server GC, fast path (ours): 7.0 KiB; target <= 6 KiB: **not met**", page, StringComparison.Ordinal);

        // Against an earlier run that measured only the fast path.
        Assert.Contains("| ours | server | 9.0 | 7.0 |", page, StringComparison.Ordinal);
        Assert.Contains("| raw-upgrade | server | - | 11.0 |", page, StringComparison.Ordinal);
    }
}
