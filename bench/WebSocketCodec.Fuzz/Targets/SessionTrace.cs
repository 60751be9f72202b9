namespace WebSocketCodec.Fuzz;

/// <summary>What a drive of a <see cref="WebSocketSession"/> saw: the frames handed to the handler and where the
/// session ended.</summary>
public sealed class SessionTrace
{
    /// <summary>The frames given to the handler, in order.</summary>
    public List<FrameRecord> Frames { get; } = [];

    /// <summary>The final state.</summary>
    public WebSocketSessionState State { get; set; }

    /// <summary>The violation.</summary>
    public ProtocolViolation Violation { get; set; }

    /// <summary>The status of the Close the session sent.</summary>
    public CloseStatus? SentCloseStatus { get; set; }

    /// <summary>The status of the peer's Close.</summary>
    public CloseStatus? ReceivedCloseStatus { get; set; }

    /// <summary>The reason of the peer's Close.</summary>
    public string? ReceivedCloseReason { get; set; }

    /// <summary>Whether the session was draining at the end.</summary>
    public bool Draining { get; set; }

    /// <summary>The agreement oracle: delivered frames, the violation and the status of our Close always; the state
    /// and the peer's Close when the session is not draining (after a violation or a failed handler the drain is
    /// bounded in bytes per read and looks for the peer's Close at the start of a read when a refused header's length
    /// is not trusted, so where reads are cut matters there by design).</summary>
    public void AssertSame(SessionTrace other, string what)
    {
        ArgumentNullException.ThrowIfNull(other);
        string? difference = Difference(other);
        if (difference is not null)
        {
            throw new OracleFailureException($"{what} disagree: {difference}");
        }
    }

    private string? Difference(SessionTrace other)
    {
        if (FrameRecord.FirstDifference(Frames, other.Frames) is { } frames)
        {
            return frames;
        }

        if (Violation != other.Violation)
        {
            return $"violation {Violation} vs {other.Violation}";
        }

        if (SentCloseStatus != other.SentCloseStatus)
        {
            return $"sent close status {SentCloseStatus} vs {other.SentCloseStatus}";
        }

        if (Draining != other.Draining)
        {
            return $"draining {Draining} vs {other.Draining}";
        }

        if (!Draining)
        {
            if (State != other.State)
            {
                return $"state {State} vs {other.State}";
            }

            if (ReceivedCloseStatus != other.ReceivedCloseStatus || ReceivedCloseReason != other.ReceivedCloseReason)
            {
                return $"received close {ReceivedCloseStatus} '{ReceivedCloseReason}' vs {other.ReceivedCloseStatus} '{other.ReceivedCloseReason}'";
            }
        }

        return null;
    }
}
