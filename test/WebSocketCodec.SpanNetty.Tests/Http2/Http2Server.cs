using System.Collections.Concurrent;
using System.Net;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>A cleartext HTTP/2 (prior knowledge) SpanNetty server on a free loopback port, set up by
/// <see cref="Http2WebSocketServer"/>; it records how every websocket ended.</summary>
internal sealed class Http2Server : IAsyncDisposable
{
    private readonly IChannel _bound;

    private Http2Server(IChannel bound, ConcurrentQueue<IChannel> connections)
    {
        _bound = bound;
        Connections = connections;
        Port = ((IPEndPoint)bound.LocalAddress).Port;
    }

    public int Port { get; }

    public Uri Url(string path = "/ws") => new($"ws://127.0.0.1:{Port}{path}");

    public Uri HttpUrl(string path = "/ws") => new($"http://127.0.0.1:{Port}{path}");

    public ConcurrentQueue<IChannel> Connections { get; }

    public ConcurrentQueue<WebSocketCloseInfo> Ended { get; } = new();

    /// <summary>Serves <paramref name="listenerFactory"/> at <c>/ws</c> (its <c>ended</c> argument records the end).</summary>
    public static Task<Http2Server> StartAsync(
        Func<WebSocketFrameSender, Action<WebSocketCloseInfo>, IWebSocketFrameListener> listenerFactory, WebSocketAcceptOptions? accept = null,
        WebSocketChannelHandlerOptions? channel = null, Http2WebSocketServerOptions? http2 = null)
    {
        Http2Server? server = null;
        return StartAsync(pipeline => Http2WebSocketServer.Configure(
            pipeline, "/ws", sender => listenerFactory(sender, info => server!.Ended.Enqueue(info)), accept, channel, http2), s => server = s);
    }

    /// <summary>Sets up each connection's pipeline with <paramref name="configure"/>.</summary>
    public static async Task<Http2Server> StartAsync(Action<IChannelPipeline> configure, Action<Http2Server>? started = null)
    {
        var connections = new ConcurrentQueue<IChannel>();
        IChannel bound = await new ServerBootstrap()
            .Group(CallbacksServer.Loops)
            .Channel<TcpServerSocketChannel>()
            .ChildOption(ChannelOption.TcpNodelay, true)
            .ChildHandler(new ActionChannelInitializer<IChannel>(channel =>
            {
                connections.Enqueue(channel);
                configure(channel.Pipeline);
            }))
            .BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
        var server = new Http2Server(bound, connections);
        started?.Invoke(server);
        return server;
    }

    public async ValueTask DisposeAsync()
    {
        await Task.WhenAll(Connections.Select(child => child.CloseAsync()));
        await _bound.CloseAsync();
    }
}
