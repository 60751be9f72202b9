namespace WebSocketCodec;

/// <summary>What <see cref="WebSocketSession.OnTimer"/> decided: a driver of your own over a session acts on it (writes
/// the pending output, aborts the transport); <see cref="WebSocketDriver"/> does this for every host.</summary>
public enum SessionTimerResult : byte
{
    /// <summary>Nothing is due.</summary>
    None,

    /// <summary>A keep-alive Ping was queued: write the pending output.</summary>
    PingQueued,

    /// <summary>No input for the idle timeout: a Close 1001 was queued and the session waits for the peer's Close.</summary>
    IdleTimeout,

    /// <summary>No Pong within the keep-alive timeout: a Close 1001 was queued; the peer is presumed gone, so write it
    /// and abort the transport.</summary>
    KeepAliveTimeout,

    /// <summary>The peer did not answer our Close within the close timeout: abort the transport.</summary>
    CloseTimeout,
}
