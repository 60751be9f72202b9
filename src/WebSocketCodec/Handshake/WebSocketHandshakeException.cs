namespace WebSocketCodec;

/// <summary>What a client throws when the opening handshake failed (the server refused, answered wrongly, or did not
/// answer in time): catch it around a connect to read the server's <see cref="StatusCode"/> and
/// <see cref="RetryAfter"/>, or whether a proxy refused the tunnel (<see cref="FromProxy"/>).</summary>
public sealed class WebSocketHandshakeException : Exception
{
    /// <summary>Creates the exception.</summary>
    public WebSocketHandshakeException()
    {
    }

    /// <summary>Creates the exception.</summary>
    public WebSocketHandshakeException(string message) : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public WebSocketHandshakeException(string message, Exception innerException) : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a response with <paramref name="statusCode"/>.</summary>
    public WebSocketHandshakeException(string message, int statusCode) : base(message) => StatusCode = statusCode;

    /// <summary>The HTTP status the server answered with, when it answered (the proxy's, when
    /// <see cref="FromProxy"/>).</summary>
    public int? StatusCode { get; }

    /// <summary>How long the server asked the client to wait before trying again (its <c>Retry-After</c>, as a delay
    /// from when the answer arrived), when it sent one with a refusal: usually 429 or 503.</summary>
    public TimeSpan? RetryAfter { get; init; }

    /// <summary>Whether an HTTP proxy refused the tunnel (its answer to CONNECT, e.g. 407 when it wants credentials, or
    /// 502 when it could not reach the server): <see cref="StatusCode"/> is then the proxy's status.</summary>
    public bool FromProxy { get; init; }
}
