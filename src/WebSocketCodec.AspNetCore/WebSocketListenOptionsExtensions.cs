using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The Kestrel fast path, a listener that serves only websockets, on the connection's own pipes, with our
/// span-based handshake and no HTTP pipeline: reach for it for a port that serves only websockets where memory per
/// websocket and CPU per message matter most. Use the endpoints (<see cref="WebSocketEndpointExtensions"/>) when you
/// need the HTTP pipeline, HTTP/2 or routing.</summary>
public static class WebSocketListenOptionsExtensions
{
    /// <summary>
    /// Serves only websockets on this Kestrel endpoint: the opening handshake is read within
    /// <see cref="WebSocketAcceptOptions.HandshakeTimeout"/> and <see cref="WebSocketAcceptOptions.MaxRequestHeadLength"/>,
    /// validated strictly, and answered on the connection's pipes; beyond
    /// <see cref="WebSocketAcceptOptions.MaxConcurrentWebSockets"/> open websockets a handshake gets 503.
    /// <paramref name="application"/> gets the handshake's result (with the client's TLS certificate, when it presented
    /// one) and the websocket, not yet running. On application shutdown every websocket gets Close 1001.
    /// </summary>
    /// <param name="listen">The Kestrel endpoint.</param>
    /// <param name="application">Runs each websocket.</param>
    /// <param name="isPathServed">Which request targets are served (404 otherwise); all when null.</param>
    /// <param name="configure">Sets this listener's options, after <c>services.Configure&lt;WebSocketAcceptOptions&gt;</c>.</param>
    /// <returns><paramref name="listen"/>.</returns>
    public static ListenOptions UseWebSockets(
        this ListenOptions listen, Func<WebSocketAcceptResult, WebSocketConnection, Task> application,
        Func<string, bool>? isPathServed = null, Action<WebSocketAcceptOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(listen);
        ArgumentNullException.ThrowIfNull(application);
        WebSocketAcceptOptions options = AcceptOptionsResolver.Resolve(listen.ApplicationServices, configure);
        var registry = new WebSocketRegistry(options.MaxConcurrentWebSockets);
        registry.CloseOnShutdown(listen.ApplicationServices);
        listen.Use(_ => connection => WebSocketAdmission.RunAsync(registry.Admission, async overCap =>
        {
            WebSocketAcceptResult result = overCap
                ? await WebSocketServerHandshake.RefuseAsync(
                    connection.Transport, null, HandshakeFailure.OverCapacity, connection.ConnectionClosed).ConfigureAwait(false)
                : await WebSocketServerHandshake.AcceptAsync(connection.Transport, options, isPathServed, connection.ConnectionClosed).ConfigureAwait(false);
            if (!result.Accepted)
            {
                return;
            }

            if (connection.Features.Get<ITlsConnectionFeature>()?.ClientCertificate is { } certificate)
            {
                result = result with { ClientCertificate = certificate };
            }

            // After a violation: our Close, then FIN through the socket while the input drains (see SocketHalfClose);
            // a peer that stopped reading is cut off (the connection's abort).
            using var websocket = new WebSocketConnection(new SocketHalfClose.ConnectionTransport(connection), WebSocketRole.Server, options.Session, result.Subprotocol);
            if (result.Deflate is { } deflate)
            {
                websocket.EnablePerMessageDeflate(deflate, options.Deflate!);
            }

            await registry.RunAsync(websocket, () => application(result, websocket)).ConfigureAwait(false);
        }));
        return listen;
    }
}
