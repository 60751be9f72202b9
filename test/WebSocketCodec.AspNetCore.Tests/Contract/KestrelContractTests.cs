using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using WebSocketCodec.Testing.Contract;

namespace WebSocketCodec.AspNetCore.Tests.Contract;

/// <summary>The host contract against the Kestrel endpoint (<c>MapWebSocket</c>, HTTP/1.1 upgrade).</summary>
public sealed class EndpointContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: false);
}

/// <summary>The host contract against the Kestrel endpoint over HTTP/2 (<c>MapWebSocket</c>, RFC 8441 extended
/// CONNECT on an h2c connection; the end of each direction is END_STREAM).</summary>
public sealed class Http2EndpointContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: false, http2: true);
}

/// <summary>The host contract against the connection fast path (<c>UseWebSockets</c> on Kestrel's connection).</summary>
public sealed class FastPathContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: true);
}

/// <summary>The host contract against the endpoint on Kestrel tuned for websockets with small blocks (8 KiB: frames and
/// messages span several) and inline scheduling: the connection's own pipes under the upgrade.</summary>
public sealed class TunedEndpointContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: false, tuning: tuning =>
    {
        tuning.BlockSize = 8 * 1024;
        tuning.InlineScheduling = true;
    });
}

/// <summary>The host contract against the fast path on Kestrel tuned for websockets (the default 64 KiB blocks).</summary>
public sealed class TunedFastPathContractTests : WebSocketHostContract
{
    protected override IContractHost Host { get; } = new KestrelContractHost(fastPath: true, tuning: _ => { });
}

/// <summary>Kestrel serving the contract's listener at <c>/ws</c>, on the endpoint or on the fast path.</summary>
internal sealed class KestrelContractHost(bool fastPath, bool http2 = false, Action<KestrelWebSocketTuning>? tuning = null) : IContractHost
{
    public async Task<IContractServer> StartAsync(
        WebSocketAcceptOptions accept, Func<WebSocketFrameSender, IWebSocketFrameListener> listener)
    {
        void Configure(WebSocketAcceptOptions options)
        {
            options.Session = accept.Session;
            options.Deflate = accept.Deflate;
            options.MaxConcurrentWebSockets = accept.MaxConcurrentWebSockets;
        }

        Action<IServiceCollection>? services = tuning is null ? null : services => services.AddKestrelWebSocketTuning(tuning);
        KestrelHost host = fastPath
            ? await KestrelHost.StartAsync(listen: listen => listen.UseWebSockets(
                (_, connection) => connection.RunAsync(listener), path => path == "/ws", Configure), services: services)
            : await KestrelHost.StartAsync(
                map: app => app.MapWebSocket("/ws", (_, sender) => listener(sender), Configure),
                listen: http2 ? listen => listen.Protocols = HttpProtocols.Http2 : null, services: services);
        return new Server(host, http2);
    }

    private sealed class Server(KestrelHost host, bool http2) : IContractServer
    {
        public System.Net.IPEndPoint EndPoint => host.EndPoint;

        public bool IsHttp2 => http2;

        public ValueTask DisposeAsync() => host.DisposeAsync();
    }
}
