using WebSocketCodec.Akka.PingPong;
using WebSocketCodec.Akka.PingPong.Run;

namespace WebSocketCodec.Bench.Tests.AkkaPingPong;

/// <summary>The RemotePingPong page: medians over completed runs only, min and max, the ratio to the better DotNetty TCP
/// variant at the same client count (named per client count), stalls counted and listed, our transport's refusals
/// summed, the warm-up listed apart and in no median; the raw JSON reads back.</summary>
public sealed class PingPongReportTests
{
    private static PingPongMeasurement Run(string variant, int clients, int repeat, double rate, RunStatus status = RunStatus.Ok) => new()
    {
        Refusals = variant == PingPongVariants.WebSocket && status == RunStatus.Ok ? repeat : null,
        Variant = variant, Clients = clients, Repeat = repeat, RoundTrips = 1000, Status = status,
        MessagesPerSecond = status == RunStatus.Ok ? rate : 0, ElapsedMs = status == RunStatus.Ok ? clients * 2000 * 1000 / rate : 0,
        Detail = status == RunStatus.Ok ? "" : "timed out in start",
    };

    [Fact]
    public void MediansRatiosAndStallsAreOnThePage()
    {
        PingPongMeasurement[] results =
        [
            Run(PingPongVariants.DotNetty, 1, 0, 1), // warm-up: not a result
            Run(PingPongVariants.DotNetty, 5, 1, 100_000), Run(PingPongVariants.WebSocket, 5, 1, 150_000), Run(PingPongVariants.DotNettyTls, 5, 1, 0, RunStatus.Stalled),
            Run(PingPongVariants.DotNetty, 5, 2, 120_000), Run(PingPongVariants.WebSocket, 5, 2, 130_000), Run(PingPongVariants.DotNettyTls, 5, 2, 60_000),
            Run(PingPongVariants.DotNetty, 5, 3, 80_000), Run(PingPongVariants.WebSocket, 5, 3, 250_000), Run(PingPongVariants.DotNettyTls, 5, 3, 0, RunStatus.Failed),
        ];
        var options = new PingPongOptions { Variants = [PingPongVariants.DotNetty, PingPongVariants.DotNettyTls, PingPongVariants.WebSocket], Repeat = 3 };

        string page = PingPongReport.ToMarkdown(results, options, "pingpong");

        Assert.Contains("| 5 | dotnetty | 100,000 | 80,000 | 120,000 | 1.00 | 3 | 0 | 0 | – |", page, StringComparison.Ordinal);
        Assert.Contains("| 5 | dotnetty-tls | 60,000 | 60,000 | 60,000 | 0.60 | 1 | 1 | 1 | – |", page, StringComparison.Ordinal);
        Assert.Contains("| 5 | ws | 150,000 | 130,000 | 250,000 | 1.50 | 3 | 0 | 0 | 6 |", page, StringComparison.Ordinal);
        Assert.DoesNotContain("| 1 | dotnetty |", page, StringComparison.Ordinal);
        Assert.Contains("| 5 | 100,000 | – | dotnetty |", page, StringComparison.Ordinal); // the baseline table: only one candidate ran
        Assert.Contains("- dotnetty-tls, 5 clients, repeat 1: Stalled, timed out in start", page, StringComparison.Ordinal);
        Assert.Contains("- dotnetty: 1 msgs/s", page, StringComparison.Ordinal); // the warm-up, listed apart
        Assert.True(page.IndexOf("| 5 | dotnetty |", StringComparison.Ordinal) < page.IndexOf("| 5 | dotnetty-tls |", StringComparison.Ordinal));

        Assert.Equal(results, PingPongReport.FromJson(PingPongReport.ToJson(results)));
        Assert.Equal(results.Length + 1, PingPongReport.ToCsv(results).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    [Fact]
    public void TheBaselineIsTheBetterDotNettyVariantAtEachClientCount()
    {
        PingPongMeasurement[] results =
        [
            // 1 client: batching off is better; 10 clients: Akka's default batching is; ws compares with each.
            Run(PingPongVariants.DotNetty, 1, 1, 100_000), Run(PingPongVariants.DotNettyNoBatching, 1, 1, 125_000), Run(PingPongVariants.WebSocket, 1, 1, 250_000),
            Run(PingPongVariants.DotNetty, 10, 1, 200_000), Run(PingPongVariants.DotNettyNoBatching, 10, 1, 160_000), Run(PingPongVariants.WebSocket, 10, 1, 300_000),
        ];
        var options = new PingPongOptions { Variants = [PingPongVariants.DotNetty, PingPongVariants.DotNettyNoBatching, PingPongVariants.WebSocket], Repeat = 1 };

        string page = PingPongReport.ToMarkdown(results, options, "pingpong");

        Assert.Contains("| 1 | 100,000 | 125,000 | dotnetty-nobatch |", page, StringComparison.Ordinal);
        Assert.Contains("| 10 | 200,000 | 160,000 | dotnetty |", page, StringComparison.Ordinal);
        Assert.Contains("| 1 | dotnetty | 100,000 | 100,000 | 100,000 | 0.80 |", page, StringComparison.Ordinal);
        Assert.Contains("| 1 | ws | 250,000 | 250,000 | 250,000 | 2.00 |", page, StringComparison.Ordinal);
        Assert.Contains("| 10 | dotnetty-nobatch | 160,000 | 160,000 | 160,000 | 0.80 |", page, StringComparison.Ordinal);
        Assert.Contains("| 10 | ws | 300,000 | 300,000 | 300,000 | 1.50 |", page, StringComparison.Ordinal);
    }

    [Fact]
    public void TheMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo()
    {
        Assert.Equal(2.5, PingPongSummary.MedianOf([1, 2, 3, 4]));
        Assert.Equal(3, PingPongSummary.MedianOf([1, 3, 9]));
        Assert.True(double.IsNaN(PingPongSummary.MedianOf([])));
    }
}
