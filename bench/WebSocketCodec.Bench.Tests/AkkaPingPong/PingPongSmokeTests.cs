using WebSocketCodec.Akka.PingPong;
using WebSocketCodec.Akka.PingPong.Run;
using Xunit.Abstractions;

namespace WebSocketCodec.Bench.Tests.AkkaPingPong;

/// <summary>The RemotePingPong benchmark's smoke mode inside <c>dotnet test</c>: two actor systems, one client doing
/// 2,000 round trips with a remote-deployed echo actor, over each transport CI can run. Asserts every round trip came
/// back (the client completes only when its last reply is in); no rate is asserted.</summary>
public sealed class PingPongSmokeTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(PingPongVariants.DotNetty, "akka.tcp", true)]
    [InlineData(PingPongVariants.DotNettyNoBatching, "akka.tcp", false)]
    [InlineData(PingPongVariants.WebSocket, "akka.ws", null)]
    [InlineData(PingPongVariants.Loopback, "akka.loopback", null)]
    public async Task OneClientsRoundTripsAllComeBack(string variant, string protocol, bool? batching)
    {
        var options = new PingPongOptions
        {
            Variants = [variant], Clients = [1], RoundTrips = 2_000, Repeat = 1, WarmUpRoundTrips = 0,
            SetupTimeout = TimeSpan.FromSeconds(20), RunTimeout = TimeSpan.FromSeconds(30),
        };

        IReadOnlyList<PingPongMeasurement> results = await PingPongRunner.RunAsync(options, output.WriteLine, RawHttp.Timeout(90));

        PingPongMeasurement result = Assert.Single(results);
        Assert.Equal(RunStatus.Ok, result.Status);
        Assert.True(PingPongRunner.PassesSmoke(result), result.ToString());
        Assert.Equal((variant, protocol, 1, 1, 2_000), (result.Variant, result.Protocol, result.Clients, result.Repeat, result.RoundTrips));
        Assert.Equal(batching, result.Batching); // DotNetty's batching as the run's actor system read its HOCON
        Assert.True(result.ElapsedMs > 0 && result.MessagesPerSecond > 0, result.ToString());
        Assert.Equal(variant == PingPongVariants.WebSocket ? 0 : null, result.Refusals); // the default water marks: no refusal
    }

    [Fact]
    public async Task WarmUpsAreKeptAndTheOrderRotatesEachRepeat()
    {
        var options = new PingPongOptions
        {
            Variants = [PingPongVariants.Loopback, PingPongVariants.DotNettyNoBatching], Clients = [1], RoundTrips = 500, Repeat = 2, WarmUpRoundTrips = 200,
            SetupTimeout = TimeSpan.FromSeconds(20), RunTimeout = TimeSpan.FromSeconds(30),
        };

        IReadOnlyList<PingPongMeasurement> results = await PingPongRunner.RunAsync(options, output.WriteLine, RawHttp.Timeout(120));

        Assert.All(results, r => Assert.Equal(RunStatus.Ok, r.Status));
        Assert.Equal(
            [(0, 0, PingPongVariants.Loopback, 200), (0, 1, PingPongVariants.DotNettyNoBatching, 200),
             (1, 0, PingPongVariants.Loopback, 500), (1, 1, PingPongVariants.DotNettyNoBatching, 500),
             (2, 0, PingPongVariants.DotNettyNoBatching, 500), (2, 1, PingPongVariants.Loopback, 500)],
            results.Select(r => (r.Repeat, r.Position, r.Variant, r.RoundTrips)));
        Assert.Contains("Warm-up runs (1 client, 200 round trips each", PingPongReport.ToMarkdown(results, options, "pingpong"), StringComparison.Ordinal);
    }

    [Fact]
    public void TheOrderStartsOneVariantFurtherOnEachRepeat()
    {
        string[] variants = ["a", "b", "c"];
        Assert.Equal(["a", "b", "c"], PingPongRunner.OrderOf(variants, 1));
        Assert.Equal(["b", "c", "a"], PingPongRunner.OrderOf(variants, 2));
        Assert.Equal(["c", "a", "b"], PingPongRunner.OrderOf(variants, 3));
        Assert.Equal(["a", "b", "c"], PingPongRunner.OrderOf(variants, 4));
    }

    [Fact]
    public async Task OurTransportsRefusalsAreCountedAboveATinyHighWaterMark()
    {
        // One byte of outbound buffer: a write made while the previous one is being flushed is refused; Akka buffers and
        // retries, the run completes. With one client a fast flush thread could take each write away before the next
        // (a fresh-clone CI run saw 0 refusals at 40,000 messages/s, with 300 bytes and with 1 byte): eight clients keep
        // several writes in flight at once.
        var options = new PingPongOptions
        {
            Variants = [PingPongVariants.WebSocket], Clients = [8], RoundTrips = 2_000, Repeat = 1, WarmUpRoundTrips = 0, RunTimeout = TimeSpan.FromSeconds(30),
            ExtraConfig = "akka.remote.websocket { outbound-high-water-mark = 1b, outbound-low-water-mark = 1b }",
        };

        PingPongMeasurement result = Assert.Single(await PingPongRunner.RunAsync(options, output.WriteLine, RawHttp.Timeout(90)));

        Assert.Equal(RunStatus.Ok, result.Status);
        Assert.True(result.Refusals > 0, result.ToString());
    }

    [Fact]
    public void OnlyACompletedRunOrADotNettyTlsStallPassesTheSmokeMode()
    {
        static PingPongMeasurement Run(string variant, RunStatus status) =>
            new() { Variant = variant, Clients = 1, Repeat = 1, RoundTrips = 2_000, Status = status };

        Assert.True(PingPongRunner.PassesSmoke(Run(PingPongVariants.DotNetty, RunStatus.Ok)));
        Assert.True(PingPongRunner.PassesSmoke(Run(PingPongVariants.DotNettyTls, RunStatus.Stalled)));
        Assert.False(PingPongRunner.PassesSmoke(Run(PingPongVariants.DotNettyTls, RunStatus.Failed)));
        Assert.False(PingPongRunner.PassesSmoke(Run(PingPongVariants.WebSocket, RunStatus.Stalled)));
        Assert.False(PingPongRunner.PassesSmoke(Run(PingPongVariants.Loopback, RunStatus.Failed)));
    }
}
