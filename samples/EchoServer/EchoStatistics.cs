using System.Collections.Concurrent;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>Counts the websocket requests to <c>/echo</c> by the protocol that carried them (<c>HTTP/1.1 upgrade</c>,
/// <c>HTTP/2 extended CONNECT</c>), so tests and operators can see which one a client used.</summary>
public sealed class EchoStatistics
{
    /// <summary>An HTTP/1.1 upgrade.</summary>
    public const string Http1Upgrade = "HTTP/1.1 upgrade";

    /// <summary>An RFC 8441 extended CONNECT over HTTP/2.</summary>
    public const string Http2ExtendedConnect = "HTTP/2 extended CONNECT";

    private readonly ConcurrentDictionary<string, int> _counts = new();

    /// <summary>The websocket requests seen so far, by carrier.</summary>
    public IReadOnlyDictionary<string, int> WebSocketRequests => _counts;

    /// <summary>How many websocket requests <paramref name="carrier"/> carried.</summary>
    public int Count(string carrier) => _counts.TryGetValue(carrier, out int count) ? count : 0;

    internal void Record(HttpContext context)
    {
        string? carrier = context.Features.Get<IHttpExtendedConnectFeature>() is { IsExtendedConnect: true }
            ? Http2ExtendedConnect
            : context.Features.Get<IHttpUpgradeFeature>() is { IsUpgradableRequest: true } ? Http1Upgrade : null;
        if (carrier is not null)
        {
            _counts.AddOrUpdate(carrier, 1, static (_, count) => count + 1);
        }
    }
}
