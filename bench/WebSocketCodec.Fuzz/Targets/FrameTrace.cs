using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>What a drive of a frame reader saw: the frames delivered, the violation it ended with, and (where the
/// drive has them) the bytes consumed and the bytes the next frame needs. Two drives of the same bytes must agree.</summary>
public sealed class FrameTrace
{
    /// <summary>The frames, in order.</summary>
    public List<FrameRecord> Frames { get; } = [];

    /// <summary>The violation, or None.</summary>
    public ProtocolViolation Violation { get; set; }

    /// <summary>Bytes consumed (frames handled); -1 when the drive does not tell.</summary>
    public long Consumed { get; set; } = -1;

    /// <summary>Bytes the next frame needs at the end; -1 when the drive does not tell.</summary>
    public long BytesNeeded { get; set; } = -1;

    /// <summary>The agreement oracle: throws when <paramref name="other"/> differs from this trace.</summary>
    /// <param name="other">The other drive's trace.</param>
    /// <param name="what">What is compared, e.g. "fast vs general".</param>
    public void AssertSame(FrameTrace other, string what)
    {
        ArgumentNullException.ThrowIfNull(other);
        string? difference = Difference(other);
        if (difference is not null)
        {
            throw new OracleFailureException($"{what} disagree: {difference}");
        }
    }

    /// <summary>The first difference, or null.</summary>
    public string? Difference(FrameTrace other)
    {
        ArgumentNullException.ThrowIfNull(other);
        if (FrameRecord.FirstDifference(Frames, other.Frames) is { } frames)
        {
            return frames;
        }

        if (Violation != other.Violation)
        {
            return $"violation {Violation} vs {other.Violation} (close {(int)Violation.ToCloseStatus()} vs {(int)other.Violation.ToCloseStatus()})";
        }

        if (Consumed >= 0 && other.Consumed >= 0 && Consumed != other.Consumed)
        {
            return $"consumed {Consumed} vs {other.Consumed}";
        }

        if (BytesNeeded >= 0 && other.BytesNeeded >= 0 && BytesNeeded != other.BytesNeeded)
        {
            return $"bytes needed {BytesNeeded} vs {other.BytesNeeded}";
        }

        return null;
    }

    /// <inheritdoc />
    public override string ToString()
    {
        var text = new StringBuilder();
        text.Append(Frames.Count).Append(" frames, ").Append(Violation);
        return text.ToString();
    }
}
