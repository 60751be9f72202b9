namespace WebSocketCodec;

/// <summary>Why an opening handshake was refused, the HTTP status to answer with and a human-readable message: what the
/// validators return and <see cref="WebSocketAcceptDecision.Failure"/> holds, for a server of your own to answer with
/// (<see cref="Http1Handshake.WriteRejection"/> over HTTP/1.1).</summary>
/// <param name="StatusCode">400 malformed, 403 origin refused, 404 not served, 405 not GET, 408 no head in time, 426
/// unsupported version (answered with <c>Sec-WebSocket-Version: 13</c>), 431 head too large, 501 a CONNECT tunnel over
/// HTTP/2, 503 over capacity.</param>
/// <param name="Message">What was wrong, for logs and the response body.</param>
public readonly record struct HandshakeFailure(int StatusCode, string Message)
{
    /// <summary>Whether this is a failure at all (a default value is not).</summary>
    public bool IsFailure => StatusCode != 0;

    /// <summary>Whether the response must name the supported version (<c>Sec-WebSocket-Version: 13</c>, RFC 6455
    /// §4.4): a 426 over HTTP/1.1, a 400 over HTTP/2.</summary>
    public bool NeedsVersionHeader { get; init; }

    /// <summary>The failure for a server that already holds as many websockets as it may.</summary>
    public static HandshakeFailure OverCapacity { get; } = new(503, "Too many websockets are open; try again later.");

    /// <summary>The failure for a head the parser refused.</summary>
    public static HandshakeFailure From(HttpHeadError error) => error switch
    {
        HttpHeadError.HeadTooLarge => new(431, "The request head is too large."),
        HttpHeadError.TooManyFields => new(431, "The request has too many header fields."),
        HttpHeadError.BadStartLine => new(400, "The request line is malformed."),
        HttpHeadError.BadLineEnding => new(400, "Lines must end with CRLF."),
        _ => new(400, "A header line is malformed."),
    };
}
