using WebSocketCodec.PerfTest;
using WebSocketCodec.SpanNetty.Benchmarks;

namespace WebSocketCodec.SpanNetty.Tests;

/// <summary>The SpanNetty benchmarks (each once, with its set-up's check that both codecs agree) and the perf tool's
/// SpanNetty variants (about a second each) run here, so the optional build keeps them working. No timing is asserted.</summary>
public sealed class BenchToolsTests
{
    [Fact]
    public void EveryBenchmarkRunsAndAgreesWithSpanNettysCodec()
    {
        var output = new StringWriter();
        int exit = SpanNettyBenchmarkEntry.Validate(output);
        Assert.True(exit == 0, output.ToString());
        Assert.DoesNotContain(" 0 benchmarks ran", output.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(Variants.OursSpanNetty, false, "socket")]
    [InlineData(Variants.OursSpanNettyMessages, true, "socket")]
    [InlineData(Variants.SpanNettyBuiltin, false, "socket")]
    [InlineData(Variants.SpanNettyBuiltinFlush, false, "socket")]
    [InlineData(Variants.SpanNettyRaw, false, "socket")]
    [InlineData(Variants.OursSpanNetty, false, "libuv")]
    public async Task ThePerfToolsSpanNettyVariantsRun(string variant, bool tls, string transport)
    {
        var options = new PerfOptions
        {
            Payload = 64, Window = 16, Tls = tls, SpanNettyTransport = transport,
            Warmup = TimeSpan.FromSeconds(0.2), Duration = TimeSpan.FromSeconds(0.5), Pin = false,
        };
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, new CancellationTokenSource(TimeSpan.FromSeconds(60)).Token);
        Assert.True(result.Messages > 0, $"{variant}: no echo came back");
    }

    [Theory]
    [InlineData(Variants.SpanNettyH2Raw, 1, false, "socket")]
    [InlineData(Variants.SpanNettyH2Raw, 10, false, "socket")]
    [InlineData(Variants.SpanNettyH2Raw, 10, true, "socket")]
    [InlineData(Variants.SpanNettyH2Raw, 10, false, "libuv")]
    [InlineData(Variants.SpanNettyH2, 1, false, "socket")]
    [InlineData(Variants.SpanNettyH2, 10, false, "socket")]
    [InlineData(Variants.SpanNettyH2, 10, true, "socket")]
    [InlineData(Variants.SpanNettyH2, 10, false, "libuv")] // many small DATA frames per flush: SpanNetty's libuv transport stalled or corrupted
    [InlineData(Variants.SpanNettyH2, 10, true, "libuv")] // such a connection before Http2WriteCoalescer held flushes behind the write on its way
    public async Task ThePerfToolsSpanNettyHttp2VariantsRun(string variant, int streams, bool tls, string transport)
    {
        var options = new PerfOptions
        {
            Payload = 64, Window = variant == Variants.SpanNettyH2 ? 128 : 16, Tls = tls, Http2 = true, Connections = streams, SpanNettyTransport = transport,
            Warmup = TimeSpan.FromSeconds(0.2), Duration = TimeSpan.FromSeconds(0.5), Pin = false,
        };
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, new CancellationTokenSource(TimeSpan.FromSeconds(60)).Token);
        Assert.True(result.Messages > 0, "no echo came back");
        Assert.Equal(variant, result.Variant);
    }
}
