using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore;

/// <summary>Maps websocket endpoints served by WebSocketCodec.</summary>
public static class WebSocketEndpointExtensions
{
    /// <summary>
    /// Serves websockets at <paramref name="pattern"/>: the HTTP/1.1 upgrade is validated strictly (GET, HTTP/1.1,
    /// Host, <c>Upgrade</c>/<c>Connection</c>, version 13 or 426, a valid key, allowed origins or 403, subprotocol
    /// selection; offered extensions are declined), then <paramref name="application"/> gets the
    /// <see cref="HttpContext"/> (user, route values...) and the websocket, not yet running: run it with the callbacks
    /// API (<see cref="WebSocketChannel.RunAsync(WebSocketExchange, CancellationToken)"/>) or wrap it in a
    /// <see cref="MessageWebSocket"/> or <see cref="PipeWebSocket"/>. When the application returns, a websocket still
    /// open is closed with 1000; on application shutdown every websocket gets Close 1001.
    /// </summary>
    /// <returns>The endpoint's builder: authorization, CORS, rate limiting and the rest compose as usual.</returns>
    public static IEndpointConventionBuilder MapWebSocketCodec(
        this IEndpointRouteBuilder endpoints, string pattern, Func<HttpContext, WebSocketChannel, Task> application,
        WebSocketAcceptOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        ArgumentNullException.ThrowIfNull(application);
        options ??= WebSocketAcceptOptions.Default;
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxConcurrentWebSockets);
        var registry = new WebSocketRegistry(options.MaxConcurrentWebSockets);
        IServiceProvider services = endpoints.ServiceProvider;
        registry.CloseOnShutdown(services);
        ILogger logger = services.GetService<ILoggerFactory>()?.CreateLogger("WebSocketCodec.AspNetCore") ?? NullLogger.Instance;
        var handler = new WebSocketEndpointHandler(options, application, registry, logger);
        return endpoints.Map(pattern, handler.HandleAsync).WithDisplayName($"WebSocketCodec {pattern}");
    }

    /// <summary>Serves websockets at <paramref name="pattern"/> with the callbacks API: <paramref name="exchange"/>
    /// gets the context and the frame sender, and returns the frame listener.</summary>
    public static IEndpointConventionBuilder MapWebSocketCodec(
        this IEndpointRouteBuilder endpoints, string pattern,
        Func<HttpContext, WebSocketFrameSender, IWebSocketFrameListener> exchange, WebSocketAcceptOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(exchange);
        return endpoints.MapWebSocketCodec(
            pattern,
            (context, channel) => channel.RunAsync(sender => exchange(context, sender), context.RequestAborted),
            options);
    }

    /// <summary>Serves websockets at <paramref name="pattern"/> with the message API.</summary>
    public static IEndpointConventionBuilder MapWebSocketMessages(
        this IEndpointRouteBuilder endpoints, string pattern, Func<HttpContext, MessageWebSocket, Task> application,
        WebSocketAcceptOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(application);
        return endpoints.MapWebSocketCodec(
            pattern,
            async (context, channel) =>
            {
                await using var messages = new MessageWebSocket(channel, options?.Session.Pool).Start(context.RequestAborted);
                await application(context, messages).ConfigureAwait(false);
                await messages.CloseAsync().ConfigureAwait(false);
            },
            options);
    }
}
