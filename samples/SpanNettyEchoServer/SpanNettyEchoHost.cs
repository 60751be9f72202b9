using System.Net;
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using DotNetty.Codecs.Http;
using DotNetty.Codecs.Http.WebSockets;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Groups;
using DotNetty.Transport.Channels.Sockets;
using DotNetty.Transport.Libuv;
using WebSocketCodec.Samples.EchoServer;
using WebSocketCodec.SpanNetty;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>The SpanNetty echo server: a bound channel and its event loops; <see cref="DisposeAsync"/> stops it.</summary>
public sealed class SpanNettyEchoHost : IAsyncDisposable
{
    private readonly IEventLoopGroup _boss;
    private readonly IEventLoopGroup _workers;
    private readonly IChannel _channel;
    private readonly DefaultChannelGroup _connections;

    private SpanNettyEchoHost(IEventLoopGroup boss, IEventLoopGroup workers, IChannel channel, DefaultChannelGroup connections, Uri url)
    {
        _boss = boss;
        _workers = workers;
        _channel = channel;
        _connections = connections;
        Url = url;
    }

    /// <summary>Where the echo is served, e.g. <c>ws://127.0.0.1:8080/echo</c>.</summary>
    public Uri Url { get; }

    /// <summary>Binds and starts serving.</summary>
    /// <exception cref="ArgumentException">An option is not valid.</exception>
    public static async Task<SpanNettyEchoHost> StartAsync(SpanNettyEchoOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (!SpanNettyEchoOptions.Codecs.Contains(options.Codec) || !SpanNettyEchoOptions.Transports.Contains(options.Transport))
        {
            throw new ArgumentException($"--codec is one of {string.Join(", ", SpanNettyEchoOptions.Codecs)}; --transport one of {string.Join(", ", SpanNettyEchoOptions.Transports)}.");
        }

        IPAddress address = options.Host == "localhost" ? IPAddress.Loopback
            : IPAddress.TryParse(options.Host, out IPAddress? parsed) ? parsed
            : throw new ArgumentException($"'{options.Host}' is not an IP address or localhost.");
        X509Certificate2? certificate = options.Tls ? SelfSignedCertificate.Create() : null;
        int threads = options.Threads > 0 ? options.Threads : Environment.ProcessorCount;
        IEventLoopGroup boss, workers;
        var bootstrap = new ServerBootstrap();
        if (options.Transport == "libuv")
        {
            SystemLibuv.Use();
            var dispatcher = new DispatcherEventLoopGroup();
            boss = dispatcher;
            workers = new WorkerEventLoopGroup(dispatcher, threads);
            bootstrap.Group(boss, workers).Channel<TcpServerChannel>();
        }
        else
        {
            boss = new MultithreadEventLoopGroup(1);
            workers = new MultithreadEventLoopGroup(threads);
            bootstrap.Group(boss, workers).Channel<TcpServerSocketChannel>();
        }

        var connections = new DefaultChannelGroup(stayClosed: true); // a connection accepted while stopping is closed at once
        bootstrap
            .Option(ChannelOption.SoBacklog, 1024)
            .ChildOption(ChannelOption.TcpNodelay, true)
            .ChildHandler(new ActionChannelInitializer<IChannel>(channel =>
            {
                connections.Add(channel); // removed when it closes
                Configure(channel.Pipeline, options, certificate);
            }));
        try
        {
            IChannel bound = await bootstrap.BindAsync(new IPEndPoint(address, options.Port));
            int port = ((IPEndPoint)bound.LocalAddress).Port;
            string host = address.AddressFamily == System.Net.Sockets.AddressFamily.InterNetworkV6 ? $"[{address}]" : address.ToString();
            return new SpanNettyEchoHost(boss, workers, bound, connections, new Uri($"{(options.Tls ? "wss" : "ws")}://{host}:{port}{options.Path}"));
        }
        catch
        {
            await Task.WhenAll(boss.ShutdownGracefullyAsync(TimeSpan.Zero, TimeSpan.FromSeconds(1)), workers.ShutdownGracefullyAsync(TimeSpan.Zero, TimeSpan.FromSeconds(1)));
            throw;
        }
    }

    /// <summary>The per-connection pipeline of each codec. Ours serves HTTP/1.1 and HTTP/2 on one port (in cleartext the
    /// protocol is told by the first bytes, with TLS by ALPN; HTTP/2 through <see cref="Http2WebSocketServer"/>); raw-h2 is
    /// HTTP/2 only (prior knowledge, or ALPN h2); the others HTTP/1.1 only.</summary>
    public static void Configure(IChannelPipeline pipeline, SpanNettyEchoOptions options, X509Certificate2? certificate)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        ArgumentNullException.ThrowIfNull(options);
        switch (options.Codec)
        {
            case "ours":
                OnePort(pipeline, options, certificate, sender => EchoCallbacks.Messages(sender, options.Ended));
                return;
            case "ours-frames" or "ours-h2":
                OnePort(pipeline, options, certificate, sender => EchoCallbacks.Frames(sender, options.Ended));
                return;
            case "raw-h2":
                if (certificate is not null)
                {
                    pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
                    {
                        ServerCertificate = certificate,
                        ApplicationProtocols = [SslApplicationProtocol.Http2],
                    }));
                }

                RawHttp2Echo.Configure(pipeline);
                return;
        }

        if (certificate is not null)
        {
            pipeline.AddLast("tls", SslStreamHandler.Server(certificate));
        }

        switch (options.Codec)
        {
            case "raw":
                pipeline.AddLast("raw", new RawEchoHandler());
                break;
            default:
                pipeline.AddLast("http", new HttpServerCodec());
                pipeline.AddLast("aggregator", new HttpObjectAggregator(64 * 1024));
                pipeline.AddLast("websocket", new WebSocketServerProtocolHandler(WebSocketServerProtocolConfig.NewBuilder()
                    .WebsocketPath(options.Path)
                    .MaxFramePayloadLength(WebSocketSessionOptions.Default.MaxFramePayloadLength) // the same 16 MiB bound as ours
                    .Build()));
                pipeline.AddLast("echo", new BuiltinEchoHandler(flushPerFrame: options.Codec == "builtin-flush"));
                break;
        }
    }

    /// <summary>Our echo at the path over HTTP/1.1 (upgrade) and HTTP/2 (extended CONNECT) on one port.</summary>
    private static void OnePort(
        IChannelPipeline pipeline, SpanNettyEchoOptions options, X509Certificate2? certificate, Func<WebSocketFrameSender, IWebSocketFrameListener> echo)
    {
        var accept = new WebSocketAcceptOptions { Session = options.Session };
        void Http1(IChannelPipeline p) => p.AddLast("upgrade", new WebSocketServerUpgradeHandler(options.Path, echo, accept));
        void Http2(IChannelPipeline p) => Http2WebSocketServer.Configure(p, options.Path, echo, accept);
        if (certificate is null)
        {
            pipeline.AddLast("detect", new Http2PriorKnowledgeDetector(Http1, Http2));
            return;
        }

        pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
        {
            ServerCertificate = certificate,
            ApplicationProtocols = [.. AlpnProtocolSelector.ApplicationProtocols],
        }));
        pipeline.AddLast("alpn", new AlpnProtocolSelector(Http1, Http2));
    }

    /// <remarks>Every connection is closed (a TLS one after its close_notify is written) before the event loops stop:
    /// SpanNetty's socket transport fails the process when an I/O operation of a channel still open completes after
    /// its loop has terminated.</remarks>
    public async ValueTask DisposeAsync()
    {
        await _channel.CloseAsync();
        try
        {
            await _connections.CloseAsync().WaitAsync(TimeSpan.FromSeconds(5));
        }
        catch (Exception error) when (error is TimeoutException or ChannelGroupException)
        {
            // A connection that did not close in time: the loops' quiet period below is the last resort.
        }

        await Task.WhenAll(
            _boss.ShutdownGracefullyAsync(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(2)),
            _workers.ShutdownGracefullyAsync(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(2)));
    }
}
