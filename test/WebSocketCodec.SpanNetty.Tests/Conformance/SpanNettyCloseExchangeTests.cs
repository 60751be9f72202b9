using System.Threading.Channels;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.SpanNetty.Tests.Conformance;

/// <summary>The SpanNetty echo server (cleartext and TLS) with a 60 s close timeout, recording how each websocket
/// ended; leaks are checked when the class is done.</summary>
public abstract class CloseExchangeServersFixture(string transport) : IAsyncLifetime
{
    private readonly Channel<ServerEnd> _ends = Channel.CreateUnbounded<ServerEnd>();
    private SpanNettyEchoHost? _plain;
    private SpanNettyEchoHost? _tls;

    public Uri Url(bool tls) => (tls ? _tls : _plain)!.Url;

    public ValueTask<ServerEnd> NextEndAsync(CancellationToken cancellationToken) => _ends.Reader.ReadAsync(cancellationToken);

    public async Task InitializeAsync()
    {
        var options = new SpanNettyEchoOptions
        {
            Port = 0,
            Transport = transport,
            Threads = 2,
            Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromSeconds(60) },
            Ended = info => _ends.Writer.TryWrite(new ServerEnd(
                (int?)info.SentStatus, (int?)info.ReceivedStatus,
                info.EndReason is WebSocketEndReason.KeepAliveTimeout or WebSocketEndReason.IdleTimeout or WebSocketEndReason.CloseTimeout,
                info.Error?.Message)),
        };
        _plain = await SpanNettyEchoHost.StartAsync(options);
        _tls = await SpanNettyEchoHost.StartAsync(options with { Tls = true });
    }

    public async Task DisposeAsync()
    {
        await _plain!.DisposeAsync();
        await _tls!.DisposeAsync();
        LeakDetection.AssertNoLeaks();
    }
}

public sealed class SocketCloseExchangeServers() : CloseExchangeServersFixture("socket");

public sealed class LibuvCloseExchangeServers() : CloseExchangeServersFixture("libuv");

/// <summary>Every violation case's close exchange on the SpanNetty echo server over managed sockets: the TCP close
/// follows at once.</summary>
public sealed class SocketCloseExchangeTests(SocketCloseExchangeServers servers, ITestOutputHelper output)
    : CloseExchangeTests(output), IClassFixture<SocketCloseExchangeServers>
{
    protected override string Host => "spannetty socket";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Url(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();
}

/// <summary>The same on SpanNetty's libuv transport.</summary>
public sealed class LibuvCloseExchangeTests(LibuvCloseExchangeServers servers, ITestOutputHelper output)
    : CloseExchangeTests(output), IClassFixture<LibuvCloseExchangeServers>
{
    protected override string Host => "spannetty libuv";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Url(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();
}

/// <summary>After a violation on the SpanNetty echo server over managed sockets: FIN (ShutdownOutput) right after the
/// Close, once its bytes (its TLS record) reached the socket.</summary>
public sealed class SocketViolationEndTests(SocketCloseExchangeServers servers, ITestOutputHelper output)
    : ViolationEndTests(output), IClassFixture<SocketCloseExchangeServers>
{
    protected override string Host => "spannetty socket";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Url(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();
}

/// <summary>The same on SpanNetty's libuv transport (libuv's own uv_shutdown).</summary>
public sealed class LibuvViolationEndTests(LibuvCloseExchangeServers servers, ITestOutputHelper output)
    : ViolationEndTests(output), IClassFixture<LibuvCloseExchangeServers>
{
    protected override string Host => "spannetty libuv";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Url(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();
}
