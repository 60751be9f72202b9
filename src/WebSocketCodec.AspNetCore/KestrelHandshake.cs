using System.Text;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Connections.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Http.Timeouts;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace WebSocketCodec.AspNetCore;

/// <summary>The opening handshake on Kestrel, shared by the websocket endpoint and the tunnel: an HTTP/1.1 upgrade
/// or an HTTP/2 (or HTTP/3) extended CONNECT, validated strictly, refused with the right status, or accepted.</summary>
internal static class KestrelHandshake
{
    private const int Http2Cancel = 0x8;

    /// <summary>Ends the websocket abruptly: RST_STREAM (CANCEL) on an HTTP/2 or HTTP/3 stream, the connection's
    /// abort over HTTP/1.1 (RFC 8441 section 5.1: the stream's counterpart of a TCP reset).</summary>
    public static void Abort(HttpContext context, bool multiplexed)
    {
        if (multiplexed && context.Features.Get<IHttpResetFeature>() is { } reset)
        {
            reset.Reset(Http2Cancel);
            return;
        }

        context.Abort();
    }

    /// <summary>The request's facts for the core's <see cref="WebSocketAcceptDecision"/>: an upgrade or, over a
    /// multiplexed protocol, an extended CONNECT; routed already (by endpoint routing).</summary>
    public static WebSocketHandshakeFacts Facts(HttpContext context, bool overCapacity = false)
    {
        HttpRequest request = context.Request;
        bool multiplexed = HttpProtocol.IsHttp2(request.Protocol) || HttpProtocol.IsHttp3(request.Protocol);
        IHttpExtendedConnectFeature? connect = multiplexed ? context.Features.Get<IHttpExtendedConnectFeature>() : null;
        return new WebSocketHandshakeFacts
        {
            Method = request.Method,
            Headers = new HeaderDictionarySource(request.Headers),
            IsMultiplexed = multiplexed,
            HttpVersion = request.Protocol,
            ConnectProtocol = connect is { IsExtendedConnect: true } ? connect.Protocol : null,
            CannotUpgrade = !multiplexed && context.Features.Get<IHttpUpgradeFeature>() is not { IsUpgradableRequest: true },
            OverCapacity = overCapacity,
        };
    }

    /// <summary>Accepts as <paramref name="decision"/> says: 101 over HTTP/1.1, 200 without END_STREAM over HTTP/2;
    /// returns the stream that carries the websocket both ways.</summary>
    public static async Task<Stream> AcceptAsync(HttpContext context, WebSocketAcceptDecision decision)
    {
        // A websocket outlives any request timeout.
        context.Features.Get<IHttpRequestTimeoutFeature>()?.DisableTimeout();
        IHeaderDictionary headers = context.Response.Headers;
        foreach ((string name, string value) in decision.ResponseHeaders)
        {
            headers[name] = value;
        }

        HandshakeTelemetry.Record(context.Request, decision.StatusCode);
        return decision.IsMultiplexed
            ? await context.Features.Get<IHttpExtendedConnectFeature>()!.AcceptAsync().ConfigureAwait(false) // RFC 8441 section 5
            : await context.Features.Get<IHttpUpgradeFeature>()!.UpgradeAsync().ConfigureAwait(false);
    }

    /// <summary>
    /// The connection's own pipes under an HTTP/1.1 request that Kestrel itself upgraded (its upgrade feature, the
    /// connection's transport feature present), or null (another server, a test host, a middleware's upgrade): after
    /// the 101, Kestrel's upgrade stream only passes reads and writes through to these pipes and touches them no more
    /// until the request ends, so the websocket may use them directly, without the stream's copies.
    /// </summary>
    public static IDuplexPipe? UpgradedConnection(HttpContext context) =>
        context.Features.Get<IHttpUpgradeFeature>() is { } upgrade
        && upgrade.GetType().Assembly == KestrelAssembly
        && context.Features.Get<IConnectionTransportFeature>()?.Transport is { } transport
            ? transport
            : null;

    private static readonly System.Reflection.Assembly KestrelAssembly = typeof(KestrelServerOptions).Assembly;

    /// <summary>Answers a refusal with its status, header fields and message; over HTTP/1.1 the connection is closed,
    /// over HTTP/2 only the stream ends.</summary>
    public static async Task RefuseAsync(HttpContext context, WebSocketAcceptDecision decision)
    {
        HandshakeTelemetry.Record(context.Request, decision.StatusCode);
        HttpResponse response = context.Response;
        response.StatusCode = decision.StatusCode;
        foreach ((string name, string value) in decision.ResponseHeaders)
        {
            response.Headers[name] = value;
        }

        await response.WriteAsync(decision.ResponseBody!, Encoding.UTF8).ConfigureAwait(false);
    }
}
