using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Bench.Tests.PerfTest;

/// <summary>The report's arithmetic: the median of repeated runs and each variant's ratio to the byte echo on its own
/// server path.</summary>
public sealed class PerfReportTests
{
    private static PerfResult Run(string variant, double rate, int payload = 64) =>
        new(variant, payload, 256, 1, false, 1, (long)rate, rate, 10, 20, 30, 0, 0, 0, 0);

    [Fact]
    public void MedianIsTheMiddleRunWithTheSpread()
    {
        PerfResult median = PerfResult.Median([Run("ours", 300), Run("ours", 100), Run("ours", 200)]);
        Assert.Equal(200, median.MessagesPerSecond);
        Assert.Equal(3, median.Runs);
        Assert.Equal(100, median.MinMessagesPerSecond);
        Assert.Equal(300, median.MaxMessagesPerSecond);

        // An even count takes the lower middle run, never an average no run measured.
        Assert.Equal(100, PerfResult.Median([Run("ours", 300), Run("ours", 100)]).MessagesPerSecond);
    }

    [Theory]
    [InlineData(Variants.Ours, Variants.Raw)]
    [InlineData(Variants.OursBulk, Variants.Raw)]
    [InlineData(Variants.OursMessages, Variants.Raw)]
    [InlineData(Variants.OursEndpoint, Variants.RawUpgrade)]
    [InlineData(Variants.OursEndpointMessages, Variants.RawUpgrade)]
    [InlineData(Variants.AspNetCore, Variants.RawUpgrade)]
    [InlineData("ours-endpoint-h2", "raw-h2")]
    [InlineData("aspnetcore-h2", "raw-h2")]
    [InlineData(Variants.Bun, Variants.EpollEcho)]
    [InlineData(Variants.EpollEcho, Variants.EpollEcho)]
    public void EachVariantIsComparedWithTheByteEchoOnItsPath(string variant, string limit) =>
        Assert.Equal(limit, PerfReport.LimitOf(variant));

    [Fact]
    public void TableShowsRatiosToAspNetCoreAndToTheLimit()
    {
        PerfResult[] results =
        [
            Run(Variants.Ours, 900), Run(Variants.OursEndpoint, 800), Run(Variants.AspNetCore, 300),
            Run(Variants.Raw, 1000), Run(Variants.RawUpgrade, 1600),
        ];
        string table = PerfReport.ToMarkdown(results, "t", "c");
        Assert.Contains("| ours | 900 |  | 3.00 | 0.90 |", table, StringComparison.Ordinal);
        Assert.Contains("| ours-endpoint | 800 |  | 2.67 | 0.50 |", table, StringComparison.Ordinal);
        Assert.Contains("| aspnetcore | 300 |  | 1.00 | 0.19 |", table, StringComparison.Ordinal);
    }

    [Fact]
    public void EveryRowIsComparedWithBunAndTheCEchoWhenTheyRan()
    {
        PerfResult[] results =
        [
            Run(Variants.Ours, 900) with { ServerCpuMicrosecondsPerMessage = 1.5 }, Run(Variants.Raw, 1000),
            Run(Variants.Bun, 1200) with { IsManaged = false }, Run(Variants.EpollEcho, 2000) with { IsManaged = false },
            Run(Variants.Ours, 500, payload: 1000),
        ];
        string table = PerfReport.ToMarkdown(results, "t", "c");
        Assert.Contains("| ours | 900 |  |  | 0.90 | 0.75 | 0.45 | 1.50 |", table, StringComparison.Ordinal);
        Assert.Contains("| bun | 1,200 |  |  | 0.60 | 1.00 | 0.60 |  |", table, StringComparison.Ordinal);
        Assert.Contains("| c-epoll | 2,000 |  |  | 1.00 | 1.67 | 1.00 |  |", table, StringComparison.Ordinal);
        Assert.Contains("| bun | 1,200 |  |  | 0.60 | 1.00 | 0.60 |  | 10 | 30 | n/a | n/a |", table, StringComparison.Ordinal);
        Assert.Contains("| 1000 | 1 | off | ours | 500 |  |  |  |  |  |  |", table, StringComparison.Ordinal); // no peer ran at 1000 B
    }
}
