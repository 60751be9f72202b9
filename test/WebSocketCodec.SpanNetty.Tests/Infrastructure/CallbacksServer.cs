using System.Collections.Concurrent;
using System.Net;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>A SpanNetty server on a free loopback port (managed sockets) whose websockets at <c>/ws</c> run the
/// callbacks the test gives, with the test's session options (and permessage-deflate when given).</summary>
/// <remarks>Its event loops (<see cref="Loops"/>) are shared and never shut down: SpanNetty's socket channel hands
/// every I/O completion to its event loop, and one that comes after the loop terminated (a closed socket's aborted
/// receive, say) throws on a thread-pool thread and ends the process.</remarks>
internal sealed class CallbacksServer : IAsyncDisposable
{
    private readonly IChannel _bound;
    private readonly ConcurrentBag<IChannel> _children;

    private CallbacksServer(IChannel bound, ConcurrentBag<IChannel> children)
    {
        _bound = bound;
        _children = children;
        Url = new Uri($"ws://127.0.0.1:{((IPEndPoint)bound.LocalAddress).Port}/ws");
    }

    /// <summary>Small receive buffers, so a peer that reads slowly soon leaves the sender's bytes in its channel, above
    /// the water marks, instead of in the kernel. (Small send buffers too made SpanNetty's socket transport deliver
    /// corrupted streams between two of its channels: see the README's SpanNetty section.)</summary>
    public const int SocketBuffer = 32 * 1024;

    /// <summary>Event loops for the tests' servers and clients.</summary>
    public static IEventLoopGroup Loops { get; } = new MultithreadEventLoopGroup(2);

    public Uri Url { get; }

    public IPEndPoint EndPoint => new(IPAddress.Loopback, Url.Port);

    public static async Task<CallbacksServer> StartAsync(
        Func<WebSocketFrameSender, IWebSocketFrameListener> exchange, WebSocketSessionOptions session, PerMessageDeflateOptions? deflate = null,
        WebSocketAcceptOptions? accept = null)
    {
        accept ??= new WebSocketAcceptOptions { Session = session, Deflate = deflate }; // one instance: it carries the cap's count
        var children = new ConcurrentBag<IChannel>();
        IChannel bound = await new ServerBootstrap()
            .Group(Loops)
            .Channel<TcpServerSocketChannel>()
            .ChildOption(ChannelOption.TcpNodelay, true)
            .ChildOption(ChannelOption.SoRcvbuf, SocketBuffer)
            .ChildHandler(new ActionChannelInitializer<IChannel>(channel =>
            {
                children.Add(channel);
                channel.Pipeline.AddLast("upgrade", new WebSocketServerUpgradeHandler("/ws", exchange, accept));
            }))
            .BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
        return new CallbacksServer(bound, children);
    }

    public async ValueTask DisposeAsync()
    {
        await Task.WhenAll(_children.Select(child => child.CloseAsync()));
        await _bound.CloseAsync();
    }
}
