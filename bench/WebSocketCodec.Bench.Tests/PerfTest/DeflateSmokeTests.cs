using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Bench.Tests.PerfTest;

/// <summary>The perf tool's <c>--deflate</c> in smoke mode: each deflate variant's server negotiates permessage-deflate
/// with the load client (with and without context takeover), echoes every compressed message compressed (RSV1), and
/// the result carries the wire bytes and CPU per message; <c>ours</c> (the fast path) is refused clearly. No timing is
/// asserted.</summary>
public sealed class DeflateSmokeTests
{
    private static PerfOptions Smoke(bool contextTakeover, int connections = 1, bool memory = false) => new()
    {
        Payload = 1024,
        Window = 16,
        Connections = connections,
        Deflate = true,
        ContextTakeover = contextTakeover,
        Memory = memory,
        Warmup = TimeSpan.FromSeconds(0.2),
        Duration = TimeSpan.FromSeconds(0.5),
        Pin = false,
    };

    [Theory]
    [InlineData(Variants.OursEndpoint, true)]
    [InlineData(Variants.OursEndpoint, false)]
    [InlineData(Variants.OursEndpointMessages, true)]
    [InlineData(Variants.AspNetCore, true)]
    [InlineData(Variants.AspNetCore, false)]
    public async Task DeflateVariantsEchoCompressedJson(string variant, bool contextTakeover)
    {
        PerfResult result = await PerfRunner.RunVariantAsync(variant, Smoke(contextTakeover), RawHttp.Timeout(60));
        Assert.True(result.Messages > 0, result.ToString());
        Assert.Equal(contextTakeover ? "takeover" : "no-takeover", result.Deflate);
        Assert.Equal(1.0, result.CompressedReplyShare, 3);

        // 1 KiB of JSON compresses: both ways the frames are shorter than the text.
        Assert.InRange(result.WireBytesInPerMessage, 8, 1024);
        Assert.InRange(result.WireBytesOutPerMessage, 2, 1024);
        Assert.True(result.ServerCpuMicrosecondsPerMessage > 0, result.ToString());
        Assert.Contains($"deflate={result.Deflate} server-cpu-us/msg=", result.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task MemoryIsReportedPerWebSocket()
    {
        PerfResult result = await PerfRunner.RunVariantAsync(Variants.OursEndpoint, Smoke(contextTakeover: true, connections: 4, memory: true), RawHttp.Timeout(90));
        Assert.True(result.Messages > 0, result.ToString());
        Assert.True(result.Rss > 0, result.ToString());
        Assert.Contains("rss/ws=", result.ToString(), StringComparison.Ordinal);

        // With --deflate, every websocket was primed before the memory was taken, and the window came after.
        Assert.True(result.SetupSeconds > 0, result.ToString());
        Assert.True(result.ServerBusy > 0, result.ToString());
        string table = DeflateMemoryReport.ToMarkdown([result], "smoke", "perftest --deflate --memory");
        Assert.Contains("| 4 | takeover | ours-endpoint | ", table, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OurVariantsRunAtTheFastestLevelWhenAsked()
    {
        PerfResult result = await PerfRunner.RunVariantAsync(Variants.OursEndpoint, Smoke(contextTakeover: true) with { DeflateLevel = DeflateMode.Fastest }, RawHttp.Timeout(60));
        Assert.Equal("ours-endpoint/fastest", result.Variant);
        Assert.True(result.Messages > 0, result.ToString());
        Assert.Equal(1.0, result.CompressedReplyShare, 3);
        Assert.Equal(Variants.AspNetCore, DeflateMode.Label(Variants.AspNetCore, DeflateMode.Fastest));
        Assert.Throws<ArgumentException>(() => DeflateMode.Level("best"));
    }

    [Fact]
    public void TheMemoryTableTakesTheMedianOfEachFigure()
    {
        PerfResult Run(double rate, double rss, double cpu) => new PerfResult("ours-endpoint", 1024, 2, 10, false, 1, 10, rate, 0, 0, 0, 0, 0, 0, 0)
        {
            RssPerWebSocket = rss,
            ServerCpuMicrosecondsPerMessage = cpu,
        };

        PerfResult median = PerfResult.MedianOfEach([Run(100, 300, 50), Run(200, 100, 30)]);
        Assert.Equal(200, median.RssPerWebSocket);
        Assert.Equal(40, median.ServerCpuMicrosecondsPerMessage);
        Assert.Equal(150, median.MessagesPerSecond);
        Assert.Equal(2, median.Runs);
        Assert.Equal(300, PerfResult.MedianOfEach([Run(100, 300, 50), Run(200, 100, 30), Run(300, 400, 10)]).RssPerWebSocket);
    }

    [Fact]
    public async Task TheFastPathIsRefusedUntilItNegotiatesDeflate()
    {
        Assert.Contains("fast path", DeflateMode.Refusal(Variants.Ours), StringComparison.Ordinal);
        Assert.Null(DeflateMode.Refusal(Variants.OursEndpoint));
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => PerfRunner.RunVariantAsync(Variants.Ours, Smoke(true), RawHttp.Timeout(60)));
        Assert.Contains("permessage-deflate", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PlainResultsKeepTheirLine()
    {
        var plain = new PerfResult("ours", 64, 256, 1, false, 1, 10, 10, 1, 2, 3, 0, 0, 0, 0);
        Assert.DoesNotContain("deflate=", plain.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("rss=", plain.ToString(), StringComparison.Ordinal);
        Assert.Matches(@"alloc/msg=0\.0 p95us=2 msgs/s=10 p50us=1 p99us=3$", plain.ToString());
        var measured = plain with { ServerCpuMicrosecondsPerMessage = 0.4567 };
        Assert.Matches(@"alloc/msg=0\.0 server-cpu-us/msg=0\.457 p95us=2 msgs/s=10 p50us=1 p99us=3$", measured.ToString());
    }
}
