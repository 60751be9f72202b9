using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace WebSocketCodec.AspNetCore;

/// <summary>The options one endpoint or listener runs with: a copy of the application's
/// <c>services.Configure&lt;WebSocketAcceptOptions&gt;(...)</c> (or the defaults), then the endpoint's own delegate.</summary>
internal static class AcceptOptionsResolver
{
    public static WebSocketAcceptOptions Resolve(IServiceProvider services, Action<WebSocketAcceptOptions>? configure)
    {
        WebSocketAcceptOptions options = services.GetService<IOptions<WebSocketAcceptOptions>>()?.Value.Clone() ?? new();
        configure?.Invoke(options);
        ArgumentNullException.ThrowIfNull(options.Session, nameof(WebSocketAcceptOptions.Session));
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(options.MaxConcurrentWebSockets, nameof(WebSocketAcceptOptions.MaxConcurrentWebSockets));
        options.Deflate?.Validate();
        return options;
    }
}
