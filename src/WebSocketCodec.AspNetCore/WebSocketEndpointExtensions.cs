using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>Maps websocket endpoints served by WebSocketCodec: the usual way to serve websockets from an ASP.NET Core
/// application, beside its other endpoints, over HTTP/1.1 and HTTP/2 alike, with routing, authorization, CORS and rate
/// limiting. <see cref="MapWebSocketMessages"/> gives each websocket the message API; <c>MapWebSocket</c> the callbacks
/// API or the websocket itself.</summary>
public static class WebSocketEndpointExtensions
{
    /// <summary>
    /// Serves websockets at <paramref name="pattern"/>: the HTTP/1.1 upgrade or HTTP/2 extended CONNECT is validated
    /// strictly (GET, HTTP/1.1, Host, <c>Upgrade</c>/<c>Connection</c>, version 13 or 426, a valid key, allowed
    /// origins or 403, subprotocol selection; permessage-deflate accepted when <see cref="WebSocketAcceptOptions.Deflate"/> is set,
    /// other extensions declined), then <paramref name="application"/>
    /// gets the <see cref="HttpContext"/> (user, route values...) and the websocket, not yet running: run it with the
    /// callbacks API (<see cref="WebSocketConnection.RunAsync(IWebSocketFrameListener, CancellationToken)"/>) or wrap
    /// it in a <see cref="MessageWebSocket"/> or <see cref="PipeWebSocket"/>. When the application returns, a websocket
    /// still open is closed with 1000; when it throws, with 1011; on application shutdown every websocket gets Close
    /// 1001.
    /// </summary>
    /// <param name="endpoints">The route builder.</param>
    /// <param name="pattern">The route pattern.</param>
    /// <param name="application">Runs each websocket.</param>
    /// <param name="configure">Sets this endpoint's options, after <c>services.Configure&lt;WebSocketAcceptOptions&gt;</c>.</param>
    /// <returns>The endpoint's builder: authorization, CORS, rate limiting and the rest compose as usual.</returns>
    public static IEndpointConventionBuilder MapWebSocket(
        this IEndpointRouteBuilder endpoints, string pattern, Func<HttpContext, WebSocketConnection, Task> application,
        Action<WebSocketAcceptOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(application);
        IServiceProvider services = endpoints.ServiceProvider;
        WebSocketAcceptOptions options = AcceptOptionsResolver.Resolve(services, configure);
        var registry = new WebSocketRegistry(options.MaxConcurrentWebSockets);
        registry.CloseOnShutdown(services);
        ILogger logger = services.GetService<ILoggerFactory>()?.CreateLogger("WebSocketCodec.AspNetCore") ?? NullLogger.Instance;
        var handler = new WebSocketEndpointHandler(options, application, registry, logger);
        return endpoints.Map(pattern, handler.HandleAsync).WithDisplayName($"WebSocket {pattern}");
    }

    /// <summary>Serves websockets at <paramref name="pattern"/> with the callbacks API: <paramref name="listenerFactory"/>
    /// gets the context and the frame sender of each websocket, and returns its frame listener.</summary>
    /// <param name="endpoints">The route builder.</param>
    /// <param name="pattern">The route pattern.</param>
    /// <param name="listenerFactory">Creates each websocket's listener.</param>
    /// <param name="configure">Sets this endpoint's options, after <c>services.Configure&lt;WebSocketAcceptOptions&gt;</c>.</param>
    /// <returns>The endpoint's builder.</returns>
    public static IEndpointConventionBuilder MapWebSocket(
        this IEndpointRouteBuilder endpoints, string pattern,
        Func<HttpContext, WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, Action<WebSocketAcceptOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(listenerFactory);
        return endpoints.MapWebSocket(
            pattern,
            // No abort token: the handler already ends the websocket as the transport's loss when the request is aborted
            // (a client's reset is the peer's end, not the application's abort).
            (context, connection) => connection.RunAsync(listenerFactory(context, connection.Sender)),
            configure);
    }

    /// <summary>Serves websockets at <paramref name="pattern"/> with the message API: <paramref name="application"/>
    /// receives and sends whole messages; the websocket is closed with 1000 when it returns.</summary>
    /// <param name="endpoints">The route builder.</param>
    /// <param name="pattern">The route pattern.</param>
    /// <param name="application">Runs each websocket.</param>
    /// <param name="configure">Sets this endpoint's options, after <c>services.Configure&lt;WebSocketAcceptOptions&gt;</c>.</param>
    /// <returns>The endpoint's builder.</returns>
    public static IEndpointConventionBuilder MapWebSocketMessages(
        this IEndpointRouteBuilder endpoints, string pattern, Func<HttpContext, MessageWebSocket, Task> application,
        Action<WebSocketAcceptOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(application);
        return endpoints.MapWebSocket(
            pattern,
            async (context, connection) =>
            {
                await using var messages = connection.RunMessages(); // a reset ends it as the transport's loss (see above)
                await application(context, messages).ConfigureAwait(false);
                await messages.CloseAsync(cancellationToken: context.RequestAborted).ConfigureAwait(false);
            },
            configure);
    }
}
