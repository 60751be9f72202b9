namespace WebSocketCodec;

/// <summary>Why a websocket ended (<see cref="WebSocketCloseInfo.EndReason"/>): switch on it to tell a clean close from
/// a violation, a timeout, a slow consumer, a lost transport, an abort or an error, in a log or in a decision to
/// reconnect.</summary>
public enum WebSocketEndReason : byte
{
    /// <summary>Both Close frames were exchanged (either side started), and nothing failed.</summary>
    Closed,

    /// <summary>The peer broke the protocol (<see cref="WebSocketCloseInfo.Violation"/> says which rule); it was sent
    /// the matching close status.</summary>
    ProtocolViolation,

    /// <summary>The peer did not answer a keep-alive Ping in time: it was presumed gone (Close 1001, transport
    /// closed).</summary>
    KeepAliveTimeout,

    /// <summary>Nothing arrived for the idle timeout: the websocket was closed with 1001.</summary>
    IdleTimeout,

    /// <summary>The peer did not answer our Close in time (or sent too much while we waited for it).</summary>
    CloseTimeout,

    /// <summary>The peer read our frames too slowly: the websocket was closed with 1008 (by the slow-consumer timeout
    /// or a group's <see cref="SlowMemberPolicy.Close"/>). Reported even when the close timeout then ended it, as it
    /// usually does: a peer that does not read cannot see the Close.</summary>
    SlowConsumer,

    /// <summary>The transport ended without a complete close handshake (the peer disconnected).</summary>
    TransportClosed,

    /// <summary>The websocket was aborted (by the application, a cancelled token, or the server's connection).</summary>
    Aborted,

    /// <summary>A transport or application error ended it (<see cref="WebSocketCloseInfo.Error"/>).</summary>
    Error,
}
