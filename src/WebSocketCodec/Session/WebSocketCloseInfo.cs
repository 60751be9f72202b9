namespace WebSocketCodec;

/// <summary>How a websocket ended: what <c>Completion</c> and <c>CloseAsync</c> complete with and
/// <see cref="IWebSocketFrameListener.OnClose"/> is given. Read <see cref="Status"/> for the close code,
/// <see cref="EndReason"/> for why, and <see cref="IsClean"/> for whether both Close frames were exchanged.</summary>
/// <param name="ReceivedStatus">The peer's close status (1005 for an empty Close), or null when no Close arrived.</param>
/// <param name="ReceivedReason">The peer's close reason.</param>
/// <param name="SentStatus">The status of our Close, or null when none was sent.</param>
/// <param name="EndReason">Why it ended.</param>
/// <param name="Violation">The rule the peer broke, when that ended it.</param>
/// <param name="Error">A transport or application error, if any.</param>
public sealed record WebSocketCloseInfo(
    CloseStatus? ReceivedStatus,
    string? ReceivedReason,
    CloseStatus? SentStatus,
    WebSocketEndReason EndReason,
    ProtocolViolation Violation,
    Exception? Error)
{
    /// <summary>Whether both Close frames were exchanged and nothing failed or timed out.</summary>
    public bool IsClean => EndReason == WebSocketEndReason.Closed;

    /// <summary>The status to report: the peer's, else ours, else 1006 (abnormal closure).</summary>
    public CloseStatus Status => ReceivedStatus ?? SentStatus ?? CloseStatus.AbnormalClosure;

    /// <summary>What a host reports when a session has ended: the first that applies of the peer's violation, the
    /// session's keep-alive or idle timeout, a slow consumer (its Close usually cannot reach a peer that does not read,
    /// so the close timeout that follows is its consequence, not the cause), the close timeout, an abort, an error, and
    /// a complete close handshake.</summary>
    internal static WebSocketCloseInfo From(
        WebSocketSession session, bool closeTimedOut, bool slowConsumer, bool aborted, Exception? error)
    {
        WebSocketEndReason reason = session.Violation != ProtocolViolation.None ? WebSocketEndReason.ProtocolViolation
            : session.Timeout switch
            {
                SessionTimerResult.KeepAliveTimeout => WebSocketEndReason.KeepAliveTimeout,
                SessionTimerResult.IdleTimeout => WebSocketEndReason.IdleTimeout,
                _ when slowConsumer => WebSocketEndReason.SlowConsumer,
                SessionTimerResult.CloseTimeout => WebSocketEndReason.CloseTimeout,
                _ when closeTimedOut => WebSocketEndReason.CloseTimeout,
                _ when aborted => WebSocketEndReason.Aborted,
                _ when error is not null => WebSocketEndReason.Error,
                _ when session.ReceivedCloseStatus is not null && session.SentCloseStatus is not null => WebSocketEndReason.Closed,
                _ => WebSocketEndReason.TransportClosed,
            };
        return new WebSocketCloseInfo(
            session.ReceivedCloseStatus, session.ReceivedCloseReason, session.SentCloseStatus, reason, session.Violation, error);
    }
}
