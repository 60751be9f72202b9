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
        public async Task<IContractServer> StartAsync(WebSocketSessionOptions session, Func<WebSocketFrameSender, IWebSocketFrameListener> listener) =>
            new Server(await CallbacksServer.StartAsync(listener, session));
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
        public async Task<IContractServer> StartAsync(WebSocketSessionOptions session, Func<WebSocketFrameSender, IWebSocketFrameListener> listener)
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
                    channel.Pipeline.AddLast("upgrade", new WebSocketServerUpgradeHandler("/ws", listener, new WebSocketAcceptOptions { Session = session }));
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
