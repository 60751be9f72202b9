namespace WebSocketCodec;

/// <summary>What a server knows of an opening handshake request: a server of your own fills it in from its request to
/// decide on it with <see cref="WebSocketAcceptDecision.Decide"/>. An HTTP/1.1 upgrade (with <see cref="HttpVersion"/>)
/// or, with <see cref="IsMultiplexed"/>, an HTTP/2 or HTTP/3 extended CONNECT (with <see cref="ConnectProtocol"/>), and
/// the facts only some hosts have.</summary>
public sealed class WebSocketHandshakeFacts
{
    /// <summary>The request method.</summary>
    public required string Method { get; init; }

    /// <summary>The request's header fields (over HTTP/2 and HTTP/3, <c>:authority</c> seen as <c>Host</c>).</summary>
    public required IHttpHeaderSource Headers { get; init; }

    /// <summary>Whether the request came on an HTTP/2 or HTTP/3 stream: then it is validated as an RFC 8441 extended
    /// CONNECT, otherwise as an RFC 6455 §4.2.1 upgrade.</summary>
    public bool IsMultiplexed { get; init; }

    /// <summary>The HTTP/1.x request line's version, e.g. <c>HTTP/1.1</c>; required unless
    /// <see cref="IsMultiplexed"/>.</summary>
    public string? HttpVersion { get; init; }

    /// <summary>The <c>:protocol</c> pseudo-header of a multiplexed request, or null for a request without one.</summary>
    public string? ConnectProtocol { get; init; }

    /// <summary>The request target (path and query, e.g. <c>/chat?room=1</c>) for the server to route (404 when it
    /// does not start with <c>/</c> or is not served); null when the server routed the request already.</summary>
    public string? Target { get; init; }

    /// <summary>Whether a multiplexed request's HEADERS ended its stream: then there is no stream to carry a websocket
    /// (400).</summary>
    public bool StreamEnded { get; init; }

    /// <summary>Whether the server cannot switch this HTTP/1.1 connection's protocol (400), as Kestrel says of a
    /// request it will not upgrade.</summary>
    public bool CannotUpgrade { get; init; }

    /// <summary>Whether the server already holds as many websockets as it may (503).</summary>
    public bool OverCapacity { get; init; }
}
