using WebSocketCodec.Akka.PingPong;
using WebSocketCodec.Akka.PingPong.Run;

namespace WebSocketCodec.Bench.Tests.AkkaPingPong;

/// <summary>The RemotePingPong page: medians over completed runs only, min and max, the ratio to DotNetty TCP at the
/// same client count, stalls counted and listed, our transport's refusals summed, the warm-up left out; the raw JSON
/// reads back.</summary>
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
        Assert.Contains("- dotnetty-tls, 5 clients, repeat 1: Stalled, timed out in start", page, StringComparison.Ordinal);
        Assert.True(page.IndexOf("| 5 | dotnetty |", StringComparison.Ordinal) < page.IndexOf("| 5 | dotnetty-tls |", StringComparison.Ordinal));

        Assert.Equal(results, PingPongReport.FromJson(PingPongReport.ToJson(results)));
        Assert.Equal(results.Length + 1, PingPongReport.ToCsv(results).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
    }

    [Fact]
    public void TheMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo()
    {
        Assert.Equal(2.5, PingPongSummary.MedianOf([1, 2, 3, 4]));
        Assert.Equal(3, PingPongSummary.MedianOf([1, 3, 9]));
        Assert.True(double.IsNaN(PingPongSummary.MedianOf([])));
    }
}
