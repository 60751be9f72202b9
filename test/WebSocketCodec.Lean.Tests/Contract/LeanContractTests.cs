using System.Net;
using WebSocketCodec.Testing.Contract;

namespace WebSocketCodec.Lean.Tests.Contract;

/// <summary>The host contract against the lean transport (its epoll loops, two of them).</summary>
public sealed class LeanContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new LeanContractHost();

    private sealed class LeanContractHost : IContractHost
    {
        public Task<IContractServer> StartAsync(WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener)
        {
            LeanWebSocketServer server = LeanWebSocketServer.Start(
                new LeanWebSocketServerOptions { Accept = accept, LoopCount = 2, Path = "/ws" },
                (_, sender) => listener(sender));
            return Task.FromResult<IContractServer>(new Server(server));
        }
    }

    private sealed class Server(LeanWebSocketServer server) : IContractServer
    {
        public IPEndPoint EndPoint => server.EndPoint;

        public ValueTask DisposeAsync() => server.DisposeAsync();
    }
}
