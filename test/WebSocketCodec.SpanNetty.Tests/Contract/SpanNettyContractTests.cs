using System.Net;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Groups;
using DotNetty.Transport.Libuv;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.Testing.Contract;

namespace WebSocketCodec.SpanNetty.Tests.Contract;

/// <summary>The host contract against the SpanNetty HTTP/1.1 server on SpanNetty's socket transport.</summary>
public sealed class SpanNettySocketContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new SocketHost();

    private sealed class SocketHost : IContractHost
    {
        public async Task<IContractServer> StartAsync(WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener) =>
            new Server(await CallbacksServer.StartAsync(listener, accept.Session, accept: accept));
    }

    private sealed class Server(CallbacksServer server) : IContractServer
    {
        public IPEndPoint EndPoint => server.EndPoint;

        public ValueTask DisposeAsync() => server.DisposeAsync();
    }
}

/// <summary>The host contract against the SpanNetty HTTP/1.1 server on SpanNetty's libuv transport (whose channels
/// half-close through libuv itself).</summary>
public sealed class SpanNettyLibuvContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new LibuvHost();

    private sealed class LibuvHost : IContractHost
    {
        public async Task<IContractServer> StartAsync(WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener)
        {
            SystemLibuv.Use();
            var dispatcher = new DispatcherEventLoopGroup();
            var workers = new WorkerEventLoopGroup(dispatcher, 1);
            var connections = new DefaultChannelGroup(stayClosed: true);
            IChannel bound = await new ServerBootstrap()
                .Group(dispatcher, workers)
                .Channel<TcpServerChannel>()
                .ChildOption(ChannelOption.TcpNodelay, true)
                .ChildHandler(new ActionChannelInitializer<IChannel>(channel =>
                {
                    connections.Add(channel);
                    channel.Pipeline.AddLast("upgrade", new WebSocketServerUpgradeHandler("/ws", listener, accept));
                }))
                .BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
            return new Server(dispatcher, workers, bound, connections);
        }
    }

    /// <remarks>Every connection is closed before the loops stop (an I/O completion after its loop ended fails the
    /// process).</remarks>
    private sealed class Server(IEventLoopGroup dispatcher, IEventLoopGroup workers, IChannel bound, DefaultChannelGroup connections)
        : IContractServer
    {
        public IPEndPoint EndPoint => (IPEndPoint)bound.LocalAddress;

        public async ValueTask DisposeAsync()
        {
            await bound.CloseAsync();
            try
            {
                await connections.CloseAsync().WaitAsync(TimeSpan.FromSeconds(5));
            }
            catch (Exception error) when (error is TimeoutException or ChannelGroupException)
            {
                // The loops' quiet period below is the last resort.
            }

            await Task.WhenAll(
                dispatcher.ShutdownGracefullyAsync(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(2)),
                workers.ShutdownGracefullyAsync(TimeSpan.FromMilliseconds(100), TimeSpan.FromSeconds(2)));
        }
    }
}

/// <summary>The host contract against the SpanNetty HTTP/2 server (<c>Http2WebSocketServer</c>, h2c prior knowledge, on
/// SpanNetty's socket transport): each websocket an RFC 8441 stream.</summary>
public sealed class SpanNettyHttp2ContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new Http2Host();

    private sealed class Http2Host : IContractHost
    {
        public async Task<IContractServer> StartAsync(WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener)
        {
            var connections = new DefaultChannelGroup(stayClosed: true);
            IChannel bound = await new ServerBootstrap()
                .Group(CallbacksServer.Loops)
                .Channel<DotNetty.Transport.Channels.Sockets.TcpServerSocketChannel>()
                .ChildOption(ChannelOption.TcpNodelay, true)
                .ChildHandler(new ActionChannelInitializer<IChannel>(channel =>
                {
                    connections.Add(channel);
                    Http2WebSocketServer.Configure(channel.Pipeline, "/ws", listener, accept);
                }))
                .BindAsync(new IPEndPoint(IPAddress.Loopback, 0));
            return new Server(bound, connections);
        }
    }

    /// <remarks>The loops are the shared ones of <see cref="CallbacksServer"/>, never shut down.</remarks>
    private sealed class Server(IChannel bound, DefaultChannelGroup connections) : IContractServer
    {
        public IPEndPoint EndPoint => (IPEndPoint)bound.LocalAddress;

        public bool IsHttp2 => true;

        public async ValueTask DisposeAsync()
        {
            await bound.CloseAsync();
            try
            {
                await connections.CloseAsync().WaitAsync(TimeSpan.FromSeconds(5));
            }
            catch (Exception error) when (error is TimeoutException or ChannelGroupException)
            {
                // The connections close with their loops' next turn.
            }
        }
    }
}
