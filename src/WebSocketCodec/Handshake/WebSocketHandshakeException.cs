namespace WebSocketCodec;

/// <summary>The opening handshake failed: the server refused, answered wrongly, or did not answer in time.</summary>
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

    /// <summary>The HTTP status the server answered with, when it answered.</summary>
    public int? StatusCode { get; }
}
