
namespace WebSocketCodec;

/// <summary>A validated opening handshake request, as an application sees it (a subprotocol selector, a tunnel, the
/// result of a raw-transport handshake) and as <see cref="Validate"/> gives it to a server of your own.</summary>
/// <remarks>It is an RFC 6455 §4.2.1 request (GET over HTTP/1.1, exactly one Host, <c>Upgrade: websocket</c>,
/// <c>Connection: Upgrade</c>, <c>Sec-WebSocket-Version: 13</c> and one valid <c>Sec-WebSocket-Key</c>, with no request
/// body), or an RFC 8441 extended CONNECT over HTTP/2 (see <see cref="WebSocketExtendedConnect"/>), which has no
/// key.</remarks>
public sealed class WebSocketUpgradeRequest
{
    internal WebSocketUpgradeRequest(
        string key, string host, string? origin, IReadOnlyList<string> subprotocols, string? extensions, bool isExtendedConnect = false)
    {
        IsExtendedConnect = isExtendedConnect;
        Key = key;
        Host = host;
        Origin = origin;
        Subprotocols = subprotocols;
        Extensions = extensions;
    }

    /// <summary>Whether the websocket is opened by an HTTP/2 extended CONNECT (RFC 8441) rather than an HTTP/1.1
    /// upgrade.</summary>
    public bool IsExtendedConnect { get; }

    /// <summary>The client's <c>Sec-WebSocket-Key</c>; empty for an extended CONNECT, which has none.</summary>
    public string Key { get; }

    /// <summary>The <c>Host</c> header (over HTTP/2, the <c>:authority</c>; empty when the request has none).</summary>
    public string Host { get; }

    /// <summary>The <c>Origin</c> header, sent by browsers.</summary>
    public string? Origin { get; }

    /// <summary>The offered subprotocols, in the client's order.</summary>
    public IReadOnlyList<string> Subprotocols { get; }

    /// <summary>The raw <c>Sec-WebSocket-Extensions</c> offer: permessage-deflate is accepted from it when
    /// <see cref="WebSocketAcceptOptions.Deflate"/> is set (see <see cref="WebSocketAcceptDecision"/>); every other offer
    /// is declined by leaving it out of the response.</summary>
    public string? Extensions { get; }

    /// <summary>Validates a request; on failure says which status to answer with.</summary>
    /// <param name="method">The request method.</param>
    /// <param name="httpVersion">The protocol, e.g. <c>HTTP/1.1</c>.</param>
    /// <param name="headers">The request's header fields.</param>
    /// <param name="request">The validated request, when the result is not a failure.</param>
    public static HandshakeFailure Validate(
        string method, string httpVersion, IHttpHeaderSource headers, out WebSocketUpgradeRequest? request)
    {
        ArgumentNullException.ThrowIfNull(headers);
        request = null;
        if (method != "GET")
        {
            return new(405, "A WebSocket opening handshake must use GET.");
        }

        if (httpVersion != "HTTP/1.1")
        {
            return new(400, "A WebSocket opening handshake needs HTTP/1.1.");
        }

        string? host = headers["Host"];
        if (headers.Count("Host") != 1 || string.IsNullOrWhiteSpace(host) || host.Contains(',', StringComparison.Ordinal))
        {
            return new(400, "The request must carry exactly one Host header.");
        }

        if (!ListHas(headers["Upgrade"], "websocket"))
        {
            return new(400, "The Upgrade header must name websocket.");
        }

        if (!ListHas(headers["Connection"], "Upgrade"))
        {
            return new(400, "The Connection header must include Upgrade.");
        }

        string? version = headers["Sec-WebSocket-Version"];
        if (version is null)
        {
            return new(400, "The Sec-WebSocket-Version header is missing.");
        }

        if (version.Trim() != "13")
        {
            return new(426, "Only WebSocket version 13 is supported.") { NeedsVersionHeader = true };
        }

        string? key = headers["Sec-WebSocket-Key"];
        if (headers.Count("Sec-WebSocket-Key") != 1 || key is null || !WebSocketHandshake.IsValidKey(key.AsSpan()))
        {
            return new(400, "The Sec-WebSocket-Key header must be one base64-encoded 16-byte value.");
        }

        if (headers["Transfer-Encoding"] is not null || (headers["Content-Length"] is { } length && length.Trim() != "0"))
        {
            return new(400, "A WebSocket opening handshake has no body.");
        }

        if (!TryReadSubprotocols(headers["Sec-WebSocket-Protocol"], out IReadOnlyList<string> subprotocols))
        {
            return new(400, "The Sec-WebSocket-Protocol header must be a list of tokens.");
        }

        request = new WebSocketUpgradeRequest(key, host, headers["Origin"], subprotocols, headers["Sec-WebSocket-Extensions"]);
        return default;
    }

    /// <summary>Whether <paramref name="value"/>, a comma-separated list, has <paramref name="token"/>
    /// (case-insensitive).</summary>
    internal static bool ListHas(string? value, string token)
    {
        if (value is null)
        {
            return false;
        }

        foreach (ReadOnlySpan<char> element in new HeaderListEnumerator(value))
        {
            if (element.Equals(token, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    internal static bool TryReadSubprotocols(string? value, out IReadOnlyList<string> subprotocols)
    {
        subprotocols = [];
        if (value is null)
        {
            return true;
        }

        var list = new List<string>();
        var elements = new HeaderListEnumerator(value);
        while (elements.MoveNext())
        {
            if (!HttpToken.IsToken(elements.Current))
            {
                return false;
            }

            list.Add(elements.Current.ToString());
        }

        subprotocols = list;
        return !elements.Malformed;
    }
}
