using System.Threading.Channels;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Lean;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>An echo on Kestrel (HTTP/1.1 and HTTP/2 on one port, cleartext and TLS) whose websockets have a 60 s close
/// timeout, recording how each websocket ended, with the active-websocket metric followed from its start.</summary>
public sealed class CloseExchangeServers : IAsyncLifetime
{
    private readonly Channel<ServerEnd> _ends = Channel.CreateUnbounded<ServerEnd>();
    private WebApplication? _plain;
    private WebApplication? _tls;
    private KestrelHost? _fastPlain;
    private KestrelHost? _fastTls;
    private LeanWebSocketServer? _leanPlain;
    private LeanWebSocketServer? _leanTls;

    public ActiveWebSocketsGauge Gauge { get; } = new();

    public Uri BaseUrl(bool tls) => SampleHosting.BaseUrl(tls ? _tls! : _plain!);

    /// <summary>The echo of the connection fast path (<c>UseWebSockets</c>), at <c>/fast</c>.</summary>
    public Uri FastPathUrl(bool tls) => (tls ? _fastTls! : _fastPlain!).WebSocketUrl("/fast");

    /// <summary>The echo on the lean transport, at <c>/echo</c>.</summary>
    public Uri LeanUrl(bool tls) => (tls ? _leanTls! : _leanPlain!).Uri;

    public ValueTask<ServerEnd> NextEndAsync(CancellationToken cancellationToken) => _ends.Reader.ReadAsync(cancellationToken);

    public async Task InitializeAsync()
    {
        _plain = await StartAsync(tls: false);
        _tls = await StartAsync(tls: true);
        _fastPlain = await StartFastPathAsync(tls: false);
        _fastTls = await StartFastPathAsync(tls: true);
        _leanPlain = StartLean(tls: false);
        _leanTls = StartLean(tls: true);
    }

    private LeanWebSocketServer StartLean(bool tls) => LeanWebSocketServer.Start(
        new LeanWebSocketServerOptions
        {
            Path = "/echo",
            Accept = new WebSocketAcceptOptions { Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromSeconds(60) } },
            Tls = tls ? new System.Net.Security.SslServerAuthenticationOptions { ServerCertificate = SelfSignedCertificate.Create() } : null,
        },
        (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(
            sender,
            static (s, type, payload) => s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload),
            onClose: Record));

    private Task<KestrelHost> StartFastPathAsync(bool tls) => KestrelHost.StartAsync(
        tls: tls,
        listen: listen => listen.UseWebSockets(
            async (_, channel) => Record(await channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
                s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload)))),
            path => path == "/fast",
            o => { o.Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromSeconds(60) }; }));

    private void Record(WebSocketCloseInfo info) => _ends.Writer.TryWrite(new ServerEnd(
        (int?)info.SentStatus, (int?)info.ReceivedStatus,
        info.EndReason is WebSocketEndReason.KeepAliveTimeout or WebSocketEndReason.IdleTimeout or WebSocketEndReason.CloseTimeout,
        info.Error?.Message));

    private async Task<WebApplication> StartAsync(bool tls)
    {
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls).Build();
        Action<WebSocketAcceptOptions> options = o => { o.Session = new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromSeconds(60) }; };
        app.MapWebSocket("/echo", async (context, channel) =>
        {
            WebSocketCloseInfo info = await channel.RunAsync(
                sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
                    s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload)),
                context.RequestAborted);
            Record(info);
        }, options);
        await app.StartAsync();
        return app;
    }

    public async Task DisposeAsync()
    {
        foreach (WebApplication? app in (WebApplication?[])[_plain, _tls])
        {
            if (app is not null)
            {
                await app.StopAsync();
                await app.DisposeAsync();
            }
        }

        foreach (LeanWebSocketServer? lean in (LeanWebSocketServer?[])[_leanPlain, _leanTls])
        {
            if (lean is not null)
            {
                await lean.DisposeAsync();
            }
        }

        foreach (KestrelHost? host in (KestrelHost?[])[_fastPlain, _fastTls])
        {
            if (host is not null)
            {
                await host.DisposeAsync();
            }
        }

        Gauge.Dispose();
    }
}

/// <summary>Serial: the active-websocket metric is process-wide, so nothing else may open websockets meanwhile.</summary>
[CollectionDefinition(nameof(CloseExchangeCollection), DisableParallelization = true)]
public sealed class CloseExchangeCollection : ICollectionFixture<CloseExchangeServers>;

/// <summary>The close exchanges over HTTP/1.1 upgrades on Kestrel: the server's TCP close follows at once.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class Http1CloseExchangeTests(CloseExchangeServers servers, ITestOutputHelper output) : CloseExchangeTests(output)
{
    protected override string Host => "kestrel h1";

    protected override Task<RawWebSocket> OpenAsync(bool tls) =>
        RawWebSocket.OpenAsync(new Uri(servers.BaseUrl(tls).ToString().Replace("http", "ws", StringComparison.Ordinal) + "echo"));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}

/// <summary>The close exchanges over HTTP/2 streams (extended CONNECT): END_STREAM follows the server's Close.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class Http2CloseExchangeTests(CloseExchangeServers servers, ITestOutputHelper output) : CloseExchangeTests(output)
{
    protected override string Host => "kestrel h2";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenHttp2Async(servers.BaseUrl(tls), "/echo");

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}

/// <summary>After a violation over HTTP/1.1 upgrades on Kestrel (<c>MapWebSocket</c>): FIN through the connection's
/// socket right after the Close.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class Http1ViolationEndTests(CloseExchangeServers servers, ITestOutputHelper output) : ViolationEndTests(output)
{
    protected override string Host => "kestrel h1";

    protected override Task<RawWebSocket> OpenAsync(bool tls) =>
        RawWebSocket.OpenAsync(new Uri(servers.BaseUrl(tls).ToString().Replace("http", "ws", StringComparison.Ordinal) + "echo"));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}

/// <summary>After a violation over HTTP/2 streams on Kestrel (extended CONNECT): END_STREAM right after the Close.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class Http2ViolationEndTests(CloseExchangeServers servers, ITestOutputHelper output) : ViolationEndTests(output)
{
    protected override string Host => "kestrel h2";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenHttp2Async(servers.BaseUrl(tls), "/echo");

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}

/// <summary>After a violation on the Kestrel connection fast path (<c>UseWebSockets</c>): FIN through the socket.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class FastPathViolationEndTests(CloseExchangeServers servers, ITestOutputHelper output) : ViolationEndTests(output)
{
    protected override string Host => "kestrel fast path";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.FastPathUrl(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}

/// <summary>The close exchanges on the lean transport: our FIN right after the exchange, the descriptor closed once
/// it is sent.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class LeanCloseExchangeTests(CloseExchangeServers servers, ITestOutputHelper output) : CloseExchangeTests(output)
{
    protected override string Host => "lean";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.LeanUrl(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}

/// <summary>After a violation on the lean transport: FIN through the socket right after the Close.</summary>
[Collection(nameof(CloseExchangeCollection))]
public sealed class LeanViolationEndTests(CloseExchangeServers servers, ITestOutputHelper output) : ViolationEndTests(output)
{
    protected override string Host => "lean";

    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.LeanUrl(tls));

    protected override Task<ServerEnd> NextServerEndAsync(CancellationToken cancellationToken) => servers.NextEndAsync(cancellationToken).AsTask();

    protected override Task WhenNoWebSocketIsOpenAsync(CancellationToken cancellationToken) => servers.Gauge.WhenZeroAsync(cancellationToken);
}
