using System.Diagnostics.Metrics;
using System.Net;
using System.Net.WebSockets;
using System.Threading.Channels;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Lean;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// One Kestrel serving an echo at <c>/echo</c> on both its hosts, the endpoint (HTTP/1.1 and h2c on one port) and the
/// fast path (a port of its own), and the same echo on the lean transport (a port of its own), with a <see cref="CountingPool"/> under every websocket and short timeouts in place of
/// the defaults that would make a test slow. It counts its own open websockets and Kestrel connections (not the
/// process-wide metric, so the hostile tests run in parallel with the rest), records how each websocket ended, and
/// keeps what it logs at Warning and above.
/// </summary>
public sealed class HostileServer : IAsyncDisposable
{
    /// <summary>The defaults, scaled down: keep-alive Ping after 1 s of quiet (default 30 s) and 1 s for its Pong
    /// (default 15 s), close timeout 1 s (default 5 s), slow consumers closed after 1 s above the high mark (default
    /// 30 s). Limits (16 MiB, 4096 fragments, water marks 64/32 KiB) are the defaults.</summary>
    public static readonly WebSocketSessionOptions ShortTimeouts = WebSocketSessionOptions.Default with
    {
        KeepAliveInterval = TimeSpan.FromSeconds(1),
        KeepAliveTimeout = TimeSpan.FromSeconds(1),
        CloseTimeout = TimeSpan.FromSeconds(1),
        SlowConsumerTimeout = TimeSpan.FromSeconds(1),
    };

    /// <summary>The handshake deadline of both hosts: our HandshakeTimeout on the fast path (default 10 s) and Kestrel's
    /// RequestHeadersTimeout on the endpoint (default 30 s).</summary>
    public static readonly TimeSpan HandshakeTimeout = TimeSpan.FromSeconds(1);

    private readonly Channel<WebSocketCloseInfo> _ends = Channel.CreateUnbounded<WebSocketCloseInfo>();
    private readonly MeterListener _meters = new();
    private WebApplication? _app;
    private int _fastPort;
    private LeanWebSocketServer? _lean;
    private volatile int _leanPort = -1;
    private int _sharedPort;

    private HostileServer(WebSocketSessionOptions session) => Session = session with { Pool = Pool };

    public CountingPool Pool { get; } = new();

    public WebSocketSessionOptions Session { get; }

    /// <summary>Websockets open on either host (counted from their listener's creation to its OnClose, which comes
    /// after the session returned its buffers).</summary>
    public CountGauge WebSockets { get; } = new();

    /// <summary>This server's open Kestrel connections (handshakes in progress included), from Kestrel's own metric.</summary>
    public CountGauge Connections { get; } = new();

    public CapturedLogs Logs { get; } = new();

    public IPEndPoint EndPoint(HostilePath path) => new(
        IPAddress.Loopback, path switch { HostilePath.FastPath => _fastPort, HostilePath.Lean => _lean!.EndPoint.Port, _ => _sharedPort });

    public Uri Url(HostilePath path) => new($"ws://127.0.0.1:{EndPoint(path).Port}/echo");

    public Uri BaseUrl => new($"http://127.0.0.1:{_sharedPort}/");

    public static async Task<HostileServer> StartAsync(WebSocketSessionOptions? session = null)
    {
        var server = new HostileServer(session ?? ShortTimeouts);
        await server.StartCoreAsync();
        return server;
    }

    /// <summary>The next websocket that ended, with how it ended.</summary>
    public ValueTask<WebSocketCloseInfo> NextEndAsync(CancellationToken cancellationToken) => _ends.Reader.ReadAsync(cancellationToken);

    /// <summary>A well-behaved client (our message API, answering Pings), over HTTP/1.1 on the host <paramref name="path"/>
    /// attacks (the endpoint's HTTP/1.1 side for <see cref="HostilePath.EndpointHttp2"/>).</summary>
    public Task<MessageWebSocket> OpenWellBehavedAsync(HostilePath path, CancellationToken cancellationToken) =>
        WebSocketClient.ConnectMessagesAsync(Url(path == HostilePath.EndpointHttp2 ? HostilePath.Endpoint : path), cancellationToken: cancellationToken);

    /// <summary>Opens a raw websocket on <paramref name="path"/> (its own connection).</summary>
    public Task<RawWebSocket> OpenRawAsync(HostilePath path) =>
        path == HostilePath.EndpointHttp2 ? RawWebSocket.OpenHttp2Async(BaseUrl, "/echo") : RawWebSocket.OpenAsync(Url(path));

    /// <summary>Asserts the echo of a well-behaved websocket still works.</summary>
    public static async Task AssertEchoAsync(MessageWebSocket socket, string text, CancellationToken cancellationToken)
    {
        await socket.SendTextAsync(text, cancellationToken);
        using WebSocketMessage? echo = await socket.ReceiveAsync(cancellationToken);
        Assert.NotNull(echo);
        Assert.Equal(text, echo.GetText());
    }

    /// <summary>Closes the well-behaved websocket cleanly, waits until the server has no websocket and (with
    /// <paramref name="connections"/>) no connection left, and asserts every pooled buffer came back and nothing was
    /// logged as a failure.</summary>
    public async Task AssertCleanEndAsync(MessageWebSocket? wellBehaved, CancellationToken cancellationToken, bool connections = true)
    {
        if (wellBehaved is not null)
        {
            Assert.True((await wellBehaved.CloseAsync((CloseStatus)1000, null, cancellationToken)).IsClean);
            await wellBehaved.DisposeAsync();
        }

        await WebSockets.WhenAtMostAsync(0, cancellationToken);
        if (connections)
        {
            await Connections.WhenAtMostAsync(0, cancellationToken);
        }

        Assert.Equal(0, Pool.Outstanding);
        Assert.Equal(0, Pool.OutstandingBytes);
        Assert.Empty(Logs.Entries);
    }

    private IWebSocketFrameListener Echo(WebSocketFrameSender sender)
    {
        WebSockets.Add(1);
        return new WebSocketMessageListener<WebSocketFrameSender>(
            sender,
            static (s, type, payload) => s.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload),
            Pool,
            info =>
            {
                _ends.Writer.TryWrite(info);
                WebSockets.Add(-1);
            });
    }

    private async Task StartCoreAsync()
    {
        Action<WebSocketAcceptOptions> accept = o => { o.Session = Session; o.HandshakeTimeout = HandshakeTimeout; };
        var builder = WebApplication.CreateSlimBuilder();
        builder.Services.AddHttp2PriorKnowledgeDetection();
        builder.Logging.ClearProviders();
        builder.Logging.AddProvider(Logs);
        ListenOptions? fast = null;
        builder.WebHost.ConfigureKestrel(kestrel =>
        {
            kestrel.Limits.RequestHeadersTimeout = HandshakeTimeout;
            kestrel.ListenHttp1AndH2c(new IPEndPoint(IPAddress.Loopback, 0));
            kestrel.Listen(IPAddress.Loopback, 0, listen =>
            {
                fast = listen;
                listen.Protocols = HttpProtocols.Http1;
                listen.UseWebSockets((_, channel) => channel.RunAsync(Echo), path => path == "/echo", accept);
            });
        });
        WebApplication app = builder.Build();
        app.MapWebSocket("/echo", (_, sender) => Echo(sender), accept);
        object meterFactory = app.Services.GetRequiredService<IMeterFactory>();
        _meters.InstrumentPublished = (instrument, listener) =>
        {
            if ((ReferenceEquals(instrument.Meter.Scope, meterFactory) && instrument.Name == "kestrel.active_connections")
                || instrument.Name == "websocketcodec.lean.connections.active")
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _meters.SetMeasurementEventCallback<long>((instrument, delta, tags, _) =>
        {
            // The lean transport's instrument is process-wide: this server's lean connections are those of its port.
            if (instrument.Name == "kestrel.active_connections" || IsLeanPort(tags))
            {
                Connections.Add(delta);
            }
        });
        _meters.Start();
        await app.StartAsync();
        _app = app;
        var leanAccept = new WebSocketAcceptOptions();
        accept(leanAccept);
        _lean = LeanWebSocketServer.Start(
            new LeanWebSocketServerOptions { Accept = leanAccept, Path = "/echo", LoopCount = 2, OnError = error => Logs.Record(error) },
            (_, sender) => Echo(sender));
        _leanPort = _lean.EndPoint.Port;
        _fastPort = fast!.IPEndPoint!.Port;
        _sharedPort = app.Urls.Select(url => new Uri(url).Port).First(port => port != _fastPort);
    }

    private bool IsLeanPort(ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        foreach (KeyValuePair<string, object?> tag in tags)
        {
            if (tag.Key == "server.port" && tag.Value is int port && port == _leanPort)
            {
                return true;
            }
        }

        return false;
    }

    public async ValueTask DisposeAsync()
    {
        if (_lean is not null)
        {
            await _lean.DisposeAsync();
        }

        if (_app is not null)
        {
            await _app.StopAsync();
            await _app.DisposeAsync();
        }

        _meters.Dispose();
    }
}
