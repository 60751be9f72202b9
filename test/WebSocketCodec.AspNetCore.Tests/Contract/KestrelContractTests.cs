using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Testing.Contract;

namespace WebSocketCodec.AspNetCore.Tests.Contract;

/// <summary>The host contract against the Kestrel endpoint (<c>MapWebSocket</c>, HTTP/1.1 upgrade).</summary>
public sealed class EndpointContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: false);
}

/// <summary>The host contract against the connection fast path (<c>UseWebSockets</c> on Kestrel's connection).</summary>
public sealed class FastPathContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: true);
}

/// <summary>Kestrel serving the contract's listener at <c>/ws</c>, on the endpoint or on the fast path.</summary>
internal sealed class KestrelContractHost(bool fastPath) : IContractHost
{
    public async Task<IContractServer> StartAsync(
        WebSocketSessionOptions session, Func<WebSocketFrameSender, IWebSocketFrameListener> listener)
    {
        KestrelHost host = fastPath
            ? await KestrelHost.StartAsync(listen: listen => listen.UseWebSockets(
                (_, connection) => connection.RunAsync(listener), path => path == "/ws", o => o.Session = session))
            : await KestrelHost.StartAsync(map: app => app.MapWebSocket("/ws", (_, sender) => listener(sender), o => o.Session = session));
        return new Server(host);
    }

    private sealed class Server(KestrelHost host) : IContractServer
    {
        public System.Net.IPEndPoint EndPoint => host.EndPoint;

        public ValueTask DisposeAsync() => host.DisposeAsync();
    }
}
