namespace WebSocketCodec.Pipelines;

/// <summary>What <see cref="ReconnectingWebSocket.SendAsync"/> throws when a <see cref="ReconnectingWebSocket"/> could
/// not take a message: catch it to handle a message that was neither sent nor queued. The client is disconnected and
/// its policy is <see cref="DisconnectedSendPolicy.Fail"/>, its queue is full, or it has stopped.</summary>
public sealed class WebSocketNotConnectedException : InvalidOperationException
{
    /// <summary>Creates the exception.</summary>
    public WebSocketNotConnectedException()
    {
    }

    /// <summary>Creates the exception.</summary>
    public WebSocketNotConnectedException(string message) : base(message)
    {
    }

    /// <summary>Creates the exception.</summary>
    public WebSocketNotConnectedException(string message, Exception innerException) : base(message, innerException)
    {
    }
}
