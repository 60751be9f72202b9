using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Bench.Tests.PerfTest;

/// <summary>The perf tool's smoke mode inside <c>dotnet test</c>: every variant's server starts in its own process,
/// takes the pipelined load, echoes every frame with its length, and reports. No timing is asserted.</summary>
public sealed class PerfToolSmokeTests
{
    public static TheoryData<string, bool, bool> Cases()
    {
        var cases = new TheoryData<string, bool, bool>();
        foreach (string variant in Variants.All)
        {
            cases.Add(variant, false, false);
        }

        cases.Add(Variants.Ours, true, false);
        cases.Add(Variants.AspNetCore, true, false);
        foreach (string variant in Variants.OnLean)
        {
            cases.Add(variant, false, false);
            cases.Add(variant, true, false);
        }

        foreach (string variant in Variants.OverHttp2)
        {
            cases.Add(variant, false, true);
        }

        cases.Add(Variants.OursEndpointMessages, true, true);
        return cases;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public async Task EveryVariantRunsAndReports(string variant, bool tls, bool http2)
    {
        var options = new PerfOptions
        {
            Payload = 125,
            Window = 16,
            Tls = tls,
            Http2 = http2,
            Warmup = TimeSpan.FromSeconds(0.2),
            Duration = TimeSpan.FromSeconds(0.5),
            Pin = false,
        };
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, RawHttp.Timeout(60));
        Assert.StartsWith(http2 && variant == Variants.RawUpgrade ? "raw-h2" : variant, result.Variant, StringComparison.Ordinal);
        Assert.True(result.Messages > 0, result.ToString());
        Assert.True(result.P50Microseconds > 0 && result.P99Microseconds >= result.P50Microseconds, result.ToString());
        Assert.Matches(@"msgs/s=\d+ p50us=\d+ p99us=\d+$", result.ToString());
    }

    [Theory]
    [InlineData(Variants.Ours, false)]
    [InlineData(Variants.AspNetCore, false)]
    [InlineData(Variants.OursEndpointMessages, true)]
    public async Task ClientWebSocketDrivesTheWebsocketVariants(string variant, bool http2)
    {
        var options = new PerfOptions
        {
            Payload = 64,
            Window = 16,
            Http2 = http2,
            Client = LoadClients.ClientWebSocket,
            Warmup = TimeSpan.FromSeconds(0.2),
            Duration = TimeSpan.FromSeconds(0.5),
            Pin = false,
        };
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, RawHttp.Timeout(60));
        Assert.Equal(LoadClients.ClientWebSocket, result.Client);
        Assert.True(result.Messages > 0, result.ToString());
        Assert.Matches(@"client=clientwebsocket .*msgs/s=\d+ p50us=\d+ p99us=\d+$", result.ToString());
    }

    [Theory]
    [InlineData(Variants.Lean)]
    [InlineData(Variants.LeanMessages)]
    public async Task TheLeanTransportAllocatesNothingPerMessageOnceWarm(string variant)
    {
        // The server's own count of allocated bytes over the measured window, divided by the messages echoed: a loop
        // iteration that allocated anything (a delegate, a closure) shows as about a byte per message at this size
        // and window (measured: 1.1), what the process allocates in the background as hundredths.
        var options = new PerfOptions
        {
            Payload = 1000,
            Window = 256,
            Warmup = TimeSpan.FromSeconds(0.5),
            Duration = TimeSpan.FromSeconds(1),
            Pin = false,
        };
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, RawHttp.Timeout(60));
        Assert.True(result.Messages > 10_000, result.ToString());
        Assert.True(result.AllocatedBytesPerMessage < 0.3, result.ToString());
    }
}
