using WebSocketCodec.Samples.SpanNettyEchoServer;

namespace WebSocketCodec.SpanNetty.Tests.Conformance;

/// <summary>The SpanNetty echo server, cleartext and TLS, shared by a conformance class; leaks are checked when the
/// class is done.</summary>
public abstract class SpanNettyServersFixture(string transport) : IAsyncLifetime
{
    private SpanNettyEchoHost? _plain;
    private SpanNettyEchoHost? _tls;

    public Uri Url(bool tls) => (tls ? _tls : _plain)!.Url;

    public async Task InitializeAsync()
    {
        _plain = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Transport = transport, Threads = 2 });
        _tls = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Transport = transport, Tls = true, Threads = 2 });
    }

    public async Task DisposeAsync()
    {
        await _plain!.DisposeAsync();
        await _tls!.DisposeAsync();
        LeakDetection.AssertNoLeaks();
    }
}

public sealed class SocketServersFixture() : SpanNettyServersFixture("socket");

public sealed class LibuvServersFixture() : SpanNettyServersFixture("libuv");

/// <summary>Every conformance case of <c>samples/EchoServer</c> (the Autobahn|Testsuite categories), against the SpanNetty
/// echo server on managed sockets.</summary>
public sealed class SocketConformanceTests(SocketServersFixture servers) : ConformanceTests, IClassFixture<SocketServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Url(tls));
}

/// <summary>The same cases on SpanNetty's libuv transport.</summary>
public sealed class LibuvConformanceTests(LibuvServersFixture servers) : ConformanceTests, IClassFixture<LibuvServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Url(tls));
}
