namespace WebSocketCodec;

/// <summary>Thrown by the layers above the codec when a peer breaks the protocol; carries the close status sent.</summary>
public sealed class WebSocketProtocolException : Exception
{
    /// <summary>Creates the exception for <paramref name="violation"/>.</summary>
    public WebSocketProtocolException(ProtocolViolation violation)
        : base(violation.Describe()) => Violation = violation;

    /// <summary>Creates the exception with no specific violation.</summary>
    public WebSocketProtocolException() : base("WebSocket protocol violation") { }

    /// <summary>Creates the exception with a message.</summary>
    public WebSocketProtocolException(string message) : base(message) { }

    /// <summary>Creates the exception with a message and an inner exception.</summary>
    public WebSocketProtocolException(string message, Exception innerException) : base(message, innerException) { }

    /// <summary>The rule that was broken.</summary>
    public ProtocolViolation Violation { get; }

    /// <summary>The close status that matches <see cref="Violation"/>.</summary>
    public CloseStatus CloseStatus => Violation.ToCloseStatus();
}
