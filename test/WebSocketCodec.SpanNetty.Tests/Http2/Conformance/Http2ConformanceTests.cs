namespace WebSocketCodec.SpanNetty.Tests.Http2.Conformance;

/// <summary>Every conformance case of <c>samples/EchoServer</c> (the Autobahn|Testsuite categories: framing, ping/pong,
/// reserved bits, opcodes, fragmentation, UTF-8 whole and split, close codes and reasons, limits) over HTTP/2 streams
/// on the SpanNetty echo server: extended CONNECT over h2c prior knowledge (<c>tls: false</c>) and over TLS with ALPN h2
/// (<c>tls: true</c>). After each case every websocket has ended on the server, its pool is balanced and no buffer
/// leaked.</summary>
public sealed class SpanNettyHttp2ConformanceTests(Http2EchoServers servers) : ConformanceTests, IClassFixture<Http2EchoServers>, IAsyncLifetime
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => servers.OpenAsync(tls);

    public Task InitializeAsync() => Task.CompletedTask;

    public Task DisposeAsync() => servers.AssertBalancedAsync();
}
