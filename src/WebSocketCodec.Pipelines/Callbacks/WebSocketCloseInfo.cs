namespace WebSocketCodec.Pipelines;

/// <summary>How a websocket ended.</summary>
/// <param name="ReceivedStatus">The peer's close status (1005 for an empty Close), or null when no Close arrived.</param>
/// <param name="ReceivedReason">The peer's close reason.</param>
/// <param name="SentStatus">The status of our Close, or null when none was sent.</param>
/// <param name="Violation">The rule the peer broke, when that ended it.</param>
/// <param name="Timeout">The timeout that ended it, if any.</param>
/// <param name="Error">A transport or application error, if any.</param>
public sealed record WebSocketCloseInfo(
    ushort? ReceivedStatus,
    string? ReceivedReason,
    ushort? SentStatus,
    ProtocolViolation Violation,
    SessionTimerResult? Timeout,
    Exception? Error)
{
    /// <summary>Whether both Close frames were exchanged and nothing failed.</summary>
    public bool IsClean => ReceivedStatus is not null && SentStatus is not null && Violation == ProtocolViolation.None
        && Timeout is null && Error is null;

    /// <summary>The status to report: the peer's, else ours, else 1006 (abnormal closure).</summary>
    public ushort Status => ReceivedStatus ?? SentStatus ?? (ushort)CloseStatus.AbnormalClosure;
}
