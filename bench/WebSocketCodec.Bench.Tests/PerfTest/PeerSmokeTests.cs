using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Bench.Tests.PerfTest;

/// <summary>The perf tool's servers outside .NET: Bun's websocket echo (Bun installed from npm's lock file) and the C
/// epoll byte echo (compiled with gcc, Debian's package installed when missing) start, take the pipelined load, echo,
/// and report without GC figures. Skipped, with the reason, where npm is missing, gcc cannot be installed, or a package
/// source cannot be reached.</summary>
public sealed class PeerSmokeTests
{
    [SkippableTheory]
    [InlineData(Variants.Bun, false)]
    [InlineData(Variants.Bun, true)] // Bun's TLS, with the tool's throwaway certificate
    [InlineData(Variants.EpollEcho, false)]
    public async Task EachPeerServerEchoesTheLoadAndReportsWithoutGcFigures(string variant, bool tls)
    {
        string? skip = variant == Variants.Bun
            ? PeerServers.Unavailable(variant) ?? await NpmInstall.EnsureAsync(PeerServers.Folder, PeerServers.BunPackage)
            : await DebianPackage.EnsureAsync("gcc", () => NodeFixture.Which("gcc")) ?? PeerServers.Unavailable(variant);
        Skip.If(skip is not null, skip);

        var options = new PerfOptions
        {
            Payload = 1000,
            Window = 16,
            Warmup = TimeSpan.FromSeconds(0.2),
            Duration = TimeSpan.FromSeconds(1.5), // the server's CPU is read in clock ticks (10 ms): a short window on a busy machine can read 0
            Pin = false,
            Tls = tls,
        };
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, RawHttp.Timeout(60));
        Assert.Equal(variant, result.Variant);
        Assert.Equal(tls, result.Tls);
        Assert.True(result.Messages > 0, result.ToString());
        Assert.True(result.ServerCpuMicrosecondsPerMessage > 0, result.ToString());
        Assert.Contains(" gc=n/a ", result.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("alloc/msg", result.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(true, false)]
    [InlineData(false, true)]
    public async Task APeerIsRefusedOverTlsOrHttp2WithTheReason(bool tls, bool http2)
    {
        var options = new PerfOptions { Payload = 64, Window = 16, Tls = tls, Http2 = http2, Pin = false };
        var error = await Assert.ThrowsAsync<NotSupportedException>(() => PerfRunner.RunVariantAsync(Variants.EpollEcho, options));
        Assert.Contains("HTTP/1.1 without TLS", error.Message, StringComparison.Ordinal);
    }
}
