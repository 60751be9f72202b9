using WebSocketCodec.Testing.Contract;
using WebSocketCodec.Tests.Driver.SocketHost;

namespace WebSocketCodec.Tests.Driver;

/// <summary>The host contract against the plain-socket host (the core package alone).</summary>
public sealed class SocketContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new SocketContractHost();

    private sealed class SocketContractHost : IContractHost
    {
        public Task<IContractServer> StartAsync(WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener) =>
            Task.FromResult<IContractServer>(new Server(SocketEchoServer.Start(accept.Session, listener, accept)));
    }

    private sealed class Server(SocketEchoServer server) : IContractServer
    {
        public System.Net.IPEndPoint EndPoint => server.EndPoint;

        public ValueTask DisposeAsync() => server.DisposeAsync();
    }
}
