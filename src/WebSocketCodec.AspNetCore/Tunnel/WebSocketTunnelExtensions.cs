using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>Handshake-only websocket endpoints, for proxies and gateways.</summary>
public static partial class WebSocketTunnelExtensions
{
    /// <summary>
    /// Validates websocket handshakes at <paramref name="pattern"/> (HTTP/1.1 upgrades and HTTP/2 extended CONNECTs,
    /// as strictly as <see cref="WebSocketEndpointExtensions.MapWebSocket(IEndpointRouteBuilder, string, Func{HttpContext, WebSocketConnection, Task}, Action{WebSocketAcceptOptions})"/>,
    /// origins included) and hands each to <paramref name="application"/> unanswered: it accepts (and gets the
    /// websocket's byte stream, frames not decoded) or refuses. A handshake the application leaves unanswered gets 502.
    /// </summary>
    public static IEndpointConventionBuilder MapWebSocketTunnel(
        this IEndpointRouteBuilder endpoints, string pattern, Func<WebSocketTunnel, Task> application,
        Action<WebSocketAcceptOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(application);
        WebSocketAcceptOptions options = AcceptOptionsResolver.Resolve(endpoints.ServiceProvider, configure);
        ILogger logger = endpoints.ServiceProvider.GetService<ILoggerFactory>()?.CreateLogger("WebSocketCodec.AspNetCore.Tunnel") ?? NullLogger.Instance;
        return endpoints.Map(pattern, async context =>
        {
            // The origin check as on the endpoint; the application picks the subprotocol.
            WebSocketAcceptDecision decision = WebSocketAcceptDecision.Decide(KestrelHandshake.Facts(context), options);
            if (!decision.IsAccepted)
            {
                LogRefused(logger, context.Request.Path, decision.StatusCode, decision.Failure.Message);
                await KestrelHandshake.RefuseAsync(context, decision).ConfigureAwait(false);
                return;
            }

            var tunnel = new WebSocketTunnel(context, decision.Request!, decision.IsMultiplexed);
            await application(tunnel).ConfigureAwait(false);
            if (!tunnel.IsAnswered)
            {
                await tunnel.RefuseAsync(502, "The websocket could not be relayed.").ConfigureAwait(false);
            }
        }).WithDisplayName($"WebSocketCodec tunnel {pattern}");
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "WebSocket tunnel handshake at {Path} refused with {Status}: {Reason}")]
    private static partial void LogRefused(ILogger logger, PathString path, int status, string reason);
}
