using DotNetty.Codecs.Http2;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>Websockets over HTTP/2 (RFC 8441) on a SpanNetty connection: call <c>Configure</c> where the connection's
/// bytes arrive (after TLS with ALPN h2, or on a cleartext connection that starts with the HTTP/2 preface: prior
/// knowledge) to serve websockets as streams, or <see cref="ConfigureHandshakeOnly"/> to run handlers of your own on
/// them.</summary>
/// <remarks><see cref="Configure(IChannelPipeline, WebSocketRoute, WebSocketAcceptOptions?, WebSocketChannelHandlerOptions?, Http2WebSocketServerOptions?)"/>
/// appends an <see cref="Http2WriteCoalescer"/> and SpanNetty's <c>Http2FrameCodec</c>
/// (SETTINGS_ENABLE_CONNECT_PROTOCOL = 1 in its initial SETTINGS, its header validation off because its HPACK decoder
/// refuses <c>:protocol</c>; every request is validated here instead) and an <c>Http2MultiplexHandler</c> whose child
/// channel per stream gets the request handler: it accepts an extended CONNECT with <c>:protocol websocket</c> (200
/// without END_STREAM), refuses the rest with the Kestrel endpoint's statuses, and runs a
/// <see cref="WebSocketChannelHandler"/> on the stream's bytes through an
/// <see cref="Http2StreamByteAdapter"/>.</remarks>
public static class Http2WebSocketServer
{
    /// <summary>Serves websockets at <paramref name="path"/> (any query) with <paramref name="listenerFactory"/>.</summary>
    /// <param name="pipeline">The connection's pipeline; the handlers are appended.</param>
    /// <param name="path">The path served.</param>
    /// <param name="listenerFactory">The callbacks of each websocket.</param>
    /// <param name="accept">Origins, subprotocols, permessage-deflate, the protocol's limits.</param>
    /// <param name="channel">How each websocket uses its stream's channel.</param>
    /// <param name="http2">Streams per connection and windows.</param>
    public static void Configure(
        IChannelPipeline pipeline, string path, Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory,
        WebSocketAcceptOptions? accept = null, WebSocketChannelHandlerOptions? channel = null, Http2WebSocketServerOptions? http2 = null)
    {
        ArgumentNullException.ThrowIfNull(listenerFactory);
        Configure(pipeline, new Dictionary<string, Func<WebSocketFrameSender, IWebSocketFrameListener>> { [path] = listenerFactory }, accept, channel, http2);
    }

    /// <summary>Serves websockets at each path of <paramref name="paths"/> (any query) with its listener factory.</summary>
    /// <param name="pipeline">The connection's pipeline; the handlers are appended.</param>
    /// <param name="paths">Path → the callbacks of each websocket there.</param>
    /// <param name="accept">Origins, subprotocols, permessage-deflate, the protocol's limits.</param>
    /// <param name="channel">How each websocket uses its stream's channel.</param>
    /// <param name="http2">Streams per connection and windows.</param>
    public static void Configure(
        IChannelPipeline pipeline, IReadOnlyDictionary<string, Func<WebSocketFrameSender, IWebSocketFrameListener>> paths,
        WebSocketAcceptOptions? accept = null, WebSocketChannelHandlerOptions? channel = null, Http2WebSocketServerOptions? http2 = null)
    {
        ArgumentNullException.ThrowIfNull(paths);
        var copy = new Dictionary<string, Func<WebSocketFrameSender, IWebSocketFrameListener>>(paths, StringComparer.Ordinal);
        foreach (var (path, factory) in copy)
        {
            ArgumentException.ThrowIfNullOrEmpty(path, nameof(paths));
            ArgumentNullException.ThrowIfNull(factory, nameof(paths));
        }

        Configure(pipeline, (_, target) => copy.GetValueOrDefault(PathOf(target)), accept, channel, http2);
    }

    /// <summary>Serves the websockets <paramref name="route"/> picks (null: 404).</summary>
    /// <param name="pipeline">The connection's pipeline; the handlers are appended.</param>
    /// <param name="route">Picks the callbacks for a validated request and its <c>:path</c>.</param>
    /// <param name="accept">Origins, subprotocols, permessage-deflate, the protocol's limits.</param>
    /// <param name="channel">How each websocket uses its stream's channel.</param>
    /// <param name="http2">Streams per connection and windows.</param>
    public static void Configure(
        IChannelPipeline pipeline, WebSocketRoute route, WebSocketAcceptOptions? accept = null,
        WebSocketChannelHandlerOptions? channel = null, Http2WebSocketServerOptions? http2 = null)
    {
        ArgumentNullException.ThrowIfNull(route);
        Install(pipeline, new Setup((request, target) => route(request, target), accept, channel, http2));
    }

    /// <summary>Serves the websockets <paramref name="route"/> picks (null: 404), telling it of the connection too (the
    /// client's certificate when an <see cref="SslStreamHandler"/> in <paramref name="pipeline"/> required one).</summary>
    /// <param name="pipeline">The connection's pipeline; the handlers are appended.</param>
    /// <param name="route">Picks the callbacks for a validated request, its <c>:path</c> and its connection.</param>
    /// <param name="accept">Origins, subprotocols, permessage-deflate, the protocol's limits.</param>
    /// <param name="channel">How each websocket uses its stream's channel.</param>
    /// <param name="http2">Streams per connection and windows.</param>
    public static void Configure(
        IChannelPipeline pipeline, WebSocketRequestRoute route, WebSocketAcceptOptions? accept = null,
        WebSocketChannelHandlerOptions? channel = null, Http2WebSocketServerOptions? http2 = null)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        ArgumentNullException.ThrowIfNull(route);
        IChannel connection = pipeline.Channel;
        Install(pipeline, new Setup((request, target) => route(new WebSocketServerRequest(request, target, connection)), accept, channel, http2));
    }

    /// <summary>Handshake-only mode: validates and accepts websockets as <see cref="Configure(IChannelPipeline, WebSocketRoute, WebSocketAcceptOptions?, WebSocketChannelHandlerOptions?, Http2WebSocketServerOptions?)"/>
    /// does (permessage-deflate is never negotiated), then hands the application the stream's child channel, with an
    /// <see cref="Http2StreamByteAdapter"/> first in its pipeline, to run its own byte handlers on.</summary>
    /// <param name="pipeline">The connection's pipeline; the handlers are appended.</param>
    /// <param name="route">For a validated request and its <c>:path</c>, what to call once it is accepted (null: 404).</param>
    /// <param name="accept">Origins and subprotocols.</param>
    /// <param name="http2">Streams per connection and windows.</param>
    public static void ConfigureHandshakeOnly(
        IChannelPipeline pipeline, Func<WebSocketUpgradeRequest, string, Http2StreamAccepted?> route,
        WebSocketAcceptOptions? accept = null, Http2WebSocketServerOptions? http2 = null)
    {
        ArgumentNullException.ThrowIfNull(route);
        Install(pipeline, new Setup((request, target) => route(request, target), accept, null, http2));
    }

    /// <summary>Shuts a connection down gracefully: GOAWAY (no new streams), Close 1001 to each of its websockets, and
    /// the connection closes once they ended or after <paramref name="timeout"/>. Completes when it is closed.</summary>
    /// <param name="connection">A connection set up by <c>Configure</c>.</param>
    /// <param name="timeout">How long the websockets have to finish their close handshakes.</param>
    public static Task ShutdownAsync(IChannel connection, TimeSpan timeout)
    {
        ArgumentNullException.ThrowIfNull(connection);
        Http2WebSocketConnection handler = Http2WebSocketConnection.Of(connection)
            ?? throw new ArgumentException("The connection was not set up by Http2WebSocketServer.Configure.", nameof(connection));
        var started = new TaskCompletionSource<Task>(TaskCreationOptions.RunContinuationsAsynchronously);
        connection.EventLoop.Execute(() =>
        {
            try
            {
                started.TrySetResult(handler.ShutdownAsync(timeout));
            }
            catch (Exception error)
            {
                started.TrySetException(error);
            }
        });
        return started.Task.Unwrap();
    }

    private static void Install(IChannelPipeline pipeline, Setup setup)
    {
        ArgumentNullException.ThrowIfNull(pipeline);
        var settings = new Http2Settings();
        settings.MaxConcurrentStreams(setup.Http2.MaxConcurrentStreams);
        settings.InitialWindowSize(setup.Http2.StreamWindowSize);
        settings.Put((char)0x8, 1); // SETTINGS_ENABLE_CONNECT_PROTOCOL (RFC 8441 §3): SpanNetty has no name for it
        Http2FrameCodec codec = new Http2FrameCodecBuilder(isServer: true) { InitialSettings = settings, IsValidateHeaders = false }.Build();
        Http2WriteCoalescer.AddTo(pipeline); // see there: SpanNetty's transports and a flush inside a finished write
        if (pipeline.Get<SslStreamHandler>() is not null)
        {
            pipeline.AddLast("http2-write-on-flush", new Http2WriteOnFlushHandler()); // see there: streams' flushes over TLS
        }

        pipeline.AddLast("http2", codec);
        pipeline.AddLast("http2-stream1-window", new Http2StreamOneWindowHandler(codec));
        pipeline.AddLast("http2-multiplex", new Http2MultiplexHandler(
            new ActionChannelInitializer<IChannel>(stream => stream.Pipeline.AddLast("http2-request", new Http2WebSocketRequestHandler(setup)))));
        pipeline.AddLast("http2-websockets", new Http2WebSocketConnection(setup.Http2.ConnectionWindowSize));
    }

    private static string PathOf(string target)
    {
        int query = target.IndexOf('?', StringComparison.Ordinal);
        return query < 0 ? target : target[..query];
    }

    /// <summary>What every stream of a connection shares.</summary>
    internal sealed class Setup
    {
        public Setup(
            Func<WebSocketUpgradeRequest, string, object?> route, WebSocketAcceptOptions? accept,
            WebSocketChannelHandlerOptions? channel, Http2WebSocketServerOptions? http2)
        {
            Route = route;
            Accept = accept?.Clone() ?? new WebSocketAcceptOptions();
            Accept.Deflate?.Validate();
            Open = WebSocketAdmission.For(accept); // shared by the connections configured with the same options instance
            Channel = channel ?? WebSocketChannelHandlerOptions.Default;
            Http2 = http2 ?? Http2WebSocketServerOptions.Default;
            Http2.Validate();
        }

        /// <summary>The listener factory or the handshake-only callback for a request, or null (404).</summary>
        public Func<WebSocketUpgradeRequest, string, object?> Route { get; }

        public WebSocketAcceptOptions Accept { get; }

        /// <summary>The open websockets counted against <see cref="WebSocketAcceptOptions.MaxConcurrentWebSockets"/>.</summary>
        public WebSocketAdmission? Open { get; }

        public WebSocketChannelHandlerOptions Channel { get; }

        public Http2WebSocketServerOptions Http2 { get; }
    }
}
