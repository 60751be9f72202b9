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
}
