using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WebSocketCodec.Http1;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>The Kestrel fast path: a listener that serves only websockets, on the connection's own pipes, with our
/// span-based handshake and no HTTP pipeline.</summary>
public static class WebSocketListenOptionsExtensions
{
    /// <summary>
    /// Serves only websockets on this Kestrel endpoint: the opening handshake is read within
    /// <see cref="WebSocketAcceptOptions.HandshakeTimeout"/> and <see cref="WebSocketAcceptOptions.MaxRequestHeadLength"/>,
    /// validated strictly, and answered on the connection's pipes; beyond
    /// <see cref="WebSocketAcceptOptions.MaxConcurrentWebSockets"/> open websockets a handshake gets 503.
    /// <paramref name="application"/> gets the handshake's result and the websocket,
    /// not yet running. On application shutdown every websocket gets Close 1001.
    /// </summary>
    /// <param name="listen">The Kestrel endpoint.</param>
    /// <param name="application">Runs each websocket.</param>
    /// <param name="options">What to accept.</param>
    /// <param name="isPathServed">Which request targets are served (404 otherwise); all when null.</param>
    public static ListenOptions UseWebSocketCodec(
        this ListenOptions listen, Func<WebSocketAcceptResult, WebSocketChannel, Task> application,
        WebSocketAcceptOptions? options = null, Func<string, bool>? isPathServed = null)
    {
        ArgumentNullException.ThrowIfNull(listen);
        ArgumentNullException.ThrowIfNull(application);
        options ??= WebSocketAcceptOptions.Default;
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxConcurrentWebSockets);
        var registry = new WebSocketRegistry(options.MaxConcurrentWebSockets);
        registry.CloseOnShutdown(listen.ApplicationServices);
        listen.Use(_ => async connection =>
        {
            bool overCap = !registry.Enter();
            try
            {
                WebSocketAcceptResult result = overCap
                    ? await WebSocketServerHandshake.RefuseAsync(
                        connection.Transport, null, WebSocketRegistry.Full, connection.ConnectionClosed).ConfigureAwait(false)
                    : await WebSocketServerHandshake.AcceptAsync(connection.Transport, options, isPathServed, connection.ConnectionClosed).ConfigureAwait(false);
                if (!result.Accepted)
                {
                    return;
                }

                using var channel = new WebSocketChannel(connection.Transport, WebSocketRole.Server, options.Session, result.Subprotocol)
                {
                    TransportAbort = connection.Abort, // a peer that stopped reading is cut off
                };
                registry.Add(channel);
                try
                {
                    try
                    {
                        await application(result, channel).ConfigureAwait(false);
                    }
                    catch (Exception) when (!channel.Completion.IsCompleted)
                    {
                        await channel.CloseAndWaitAsync((ushort)CloseStatus.InternalError, "internal error").ConfigureAwait(false);
                        throw;
                    }

                    await channel.CloseAndWaitAsync().ConfigureAwait(false);
                }
                finally
                {
                    registry.Remove(channel);
                }
            }
            finally
            {
                registry.Leave();
            }
        });
        return listen;
    }
}
