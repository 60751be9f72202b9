
namespace WebSocketCodec;

/// <summary>Validates an RFC 8441 extended CONNECT that opens a websocket on an HTTP/2 stream: for an HTTP/2 server of
/// your own; <see cref="WebSocketAcceptDecision.Decide"/> calls it for a request that
/// <see cref="WebSocketHandshakeFacts.IsMultiplexed"/> marks. The request needs method <c>CONNECT</c>, <c>:protocol
/// websocket</c> and <c>sec-websocket-version: 13</c>. There is no key and no accept value; the server answers 200
/// without ending the stream, and the stream then carries the RFC 6455 frames.</summary>
public static class WebSocketExtendedConnect
{
    /// <summary>The <c>:protocol</c> pseudo-header value that opens a websocket.</summary>
    public const string Protocol = "websocket";

    /// <summary>Validates the request; on failure says which status to answer with (501 for a CONNECT without
    /// <c>:protocol</c>, a tunnel request, as Kestrel answers it; 400 for every other malformed or unsupported request;
    /// a missing version or one other than 13 is flagged
    /// <see cref="HandshakeFailure.NeedsVersionHeader"/>, to be answered with <c>sec-websocket-version: 13</c>).</summary>
    /// <param name="method">The request method.</param>
    /// <param name="connectProtocol">The <c>:protocol</c> pseudo-header, or null for a request without one.</param>
    /// <param name="headers">The request's header fields (<c>:authority</c> seen as <c>Host</c>).</param>
    /// <param name="request">The validated request, when the result is not a failure.</param>
    public static HandshakeFailure Validate(
        string method, string? connectProtocol, IHttpHeaderSource headers, out WebSocketUpgradeRequest? request)
    {
        ArgumentNullException.ThrowIfNull(method);
        ArgumentNullException.ThrowIfNull(headers);
        request = null;
        if (method != "CONNECT")
        {
            return new(400, "A WebSocket over HTTP/2 is opened with an extended CONNECT (RFC 8441), not " + method + ".");
        }

        if (connectProtocol is null)
        {
            return new(501, "A CONNECT tunnel is not served here; a websocket is opened with :protocol websocket (RFC 8441).");
        }

        if (!string.Equals(connectProtocol, Protocol, StringComparison.OrdinalIgnoreCase))
        {
            return new(400, $"The :protocol '{connectProtocol}' is not supported here; use websocket.");
        }

        string? version = headers["Sec-WebSocket-Version"];
        if (version is null)
        {
            return new(400, "The sec-websocket-version header is missing.") { NeedsVersionHeader = true };
        }

        if (headers.Count("Sec-WebSocket-Version") != 1 || version.Trim() != "13")
        {
            return new(400, "Only WebSocket version 13 is supported.") { NeedsVersionHeader = true };
        }

        if (!WebSocketUpgradeRequest.TryReadSubprotocols(headers["Sec-WebSocket-Protocol"], out IReadOnlyList<string> subprotocols))
        {
            return new(400, "The sec-websocket-protocol header must be a list of tokens.");
        }

        string host = headers["Host"] ?? string.Empty;
        request = new WebSocketUpgradeRequest(string.Empty, host, headers["Origin"], subprotocols, headers["Sec-WebSocket-Extensions"], isExtendedConnect: true);
        return default;
    }
}
