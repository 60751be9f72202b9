using System.Text;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Http.Timeouts;

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

    /// <summary>Validates the request as an upgrade or, over a multiplexed protocol, an extended CONNECT.</summary>
    public static HandshakeFailure Validate(HttpContext context, out WebSocketUpgradeRequest? upgrade, out bool multiplexed)
    {
        HttpRequest request = context.Request;
        var headers = new HeaderDictionarySource(request.Headers);
        multiplexed = HttpProtocol.IsHttp2(request.Protocol) || HttpProtocol.IsHttp3(request.Protocol);
        if (multiplexed)
        {
            IHttpExtendedConnectFeature? connect = context.Features.Get<IHttpExtendedConnectFeature>();
            return WebSocketExtendedConnect.Validate(request.Method, connect is { IsExtendedConnect: true } ? connect.Protocol : null, headers, out upgrade);
        }

        HandshakeFailure failure = WebSocketUpgradeRequest.Validate(request.Method, request.Protocol, headers, out upgrade);
        if (!failure.IsFailure && context.Features.Get<IHttpUpgradeFeature>() is not { IsUpgradableRequest: true })
        {
            failure = new HandshakeFailure(400, "This connection cannot be upgraded.");
        }

        return failure;
    }

    /// <summary>Accepts: 101 with the accept value over HTTP/1.1, 200 without END_STREAM over HTTP/2; returns the
    /// stream that carries the websocket both ways.</summary>
    public static async Task<Stream> AcceptAsync(
        HttpContext context, WebSocketUpgradeRequest upgrade, bool multiplexed, string? subprotocol, string? extensions = null)
    {
        // A websocket outlives any request timeout.
        context.Features.Get<IHttpRequestTimeoutFeature>()?.DisableTimeout();
        IHeaderDictionary headers = context.Response.Headers;
        if (subprotocol is not null)
        {
            headers["Sec-WebSocket-Protocol"] = subprotocol;
        }

        if (extensions is not null)
        {
            headers["Sec-WebSocket-Extensions"] = extensions;
        }

        HandshakeTelemetry.Record(context.Request, multiplexed ? 200 : 101);
        if (multiplexed)
        {
            // RFC 8441 section 5: the stream then carries the frames both ways.
            return await context.Features.Get<IHttpExtendedConnectFeature>()!.AcceptAsync().ConfigureAwait(false);
        }

        headers.Upgrade = "websocket";
        headers.Connection = "Upgrade";
        headers["Sec-WebSocket-Accept"] = WebSocketHandshake.ComputeAccept(upgrade.Key);
        return await context.Features.Get<IHttpUpgradeFeature>()!.UpgradeAsync().ConfigureAwait(false);
    }

    /// <summary>Answers with the failure's status and message (and the supported version when it is about the
    /// version); over HTTP/1.1 the connection is closed, over HTTP/2 only the stream ends.</summary>
    public static async Task RefuseAsync(HttpContext context, HandshakeFailure failure, bool multiplexed)
    {
        HandshakeTelemetry.Record(context.Request, failure.StatusCode);
        HttpResponse response = context.Response;
        response.StatusCode = failure.StatusCode;
        if (!multiplexed)
        {
            // Connection-specific fields are not allowed over HTTP/2 and HTTP/3.
            response.Headers.Connection = "close";
        }

        if (failure.NeedsVersionHeader || failure.StatusCode == 426)
        {
            response.Headers["Sec-WebSocket-Version"] = "13";
            if (!multiplexed)
            {
                response.Headers.Upgrade = "websocket";
            }
        }
        else if (failure.StatusCode == 405)
        {
            response.Headers.Allow = "GET";
        }

        response.ContentType = "text/plain; charset=utf-8";
        await response.WriteAsync(failure.Message + "\n", Encoding.UTF8).ConfigureAwait(false);
    }
}
