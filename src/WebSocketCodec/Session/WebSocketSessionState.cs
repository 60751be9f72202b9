namespace WebSocketCodec;

/// <summary>Where a <see cref="WebSocketSession"/> is in its life (RFC 6455 §7): read it as
/// <see cref="WebSocketDriver.State"/> to know whether a websocket is open, has sent its Close and waits for the
/// peer's, or has closed.</summary>
public enum WebSocketSessionState : byte
{
    /// <summary>Messages flow both ways.</summary>
    Open,

    /// <summary>We sent a Close and wait for the peer's.</summary>
    CloseSent,

    /// <summary>The close handshake finished (both Close frames), or a violation or timeout ended the session: the
    /// driver flushes what is pending, drains the input (bounded) and closes the transport.</summary>
    Closed,
}
