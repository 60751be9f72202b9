using System.IO.Compression;

namespace WebSocketCodec.Fuzz;

/// <summary>How a fragment sequence ended in the library's inflater.</summary>
public enum InflateOutcome
{
    /// <summary>Every fragment inflated.</summary>
    Ok,

    /// <summary>The data did not inflate (<see cref="InvalidDataException"/>: 1007 in the session).</summary>
    Invalid,

    /// <summary>A message inflated past the limit (1009 in the session).</summary>
    TooBig,
}

/// <summary>
/// One drive of <see cref="MessageInflater"/> as the session drives it: each fragment (or each piece of one, cut at
/// <c>cuts</c>) inflated into an <see cref="InflateBuffer"/> handed on and reset, the context reset after an
/// <see cref="InvalidDataException"/>, the buffers sometimes released between messages, and the first failure ending
/// the drive (the session fails the connection there).
/// </summary>
/// <param name="Messages">The whole messages inflated.</param>
/// <param name="Partial">What the message under way had inflated when the drive ended.</param>
/// <param name="Outcome">How it ended.</param>
/// <param name="Failed">The index of the message that failed (the count of messages when none did).</param>
public sealed record InflateRun(List<byte[]> Messages, byte[] Partial, InflateOutcome Outcome, int Failed)
{
    /// <summary>Drives <paramref name="fragments"/> of <paramref name="input"/> through a new inflater.</summary>
    /// <param name="input">The input.</param>
    /// <param name="fragments">Its fragments (<see cref="InflateRecords.Read"/>).</param>
    /// <param name="keepContext">Whether the inflater keeps context between messages.</param>
    /// <param name="limit">The message limit.</param>
    /// <param name="cuts">For each fragment, where to cut it (null: whole).</param>
    /// <param name="release">Whether to release the buffers after each message.</param>
    public static InflateRun Drive(
        byte[] input, List<(int Start, int Length, bool Final)> fragments, bool keepContext, long limit, int[][]? cuts, bool release)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(fragments);
        var pool = new BalanceCheckingPool();
        var inflater = new MessageInflater(keepContext, pool);
        var buffer = new InflateBuffer(pool);
        var messages = new List<byte[]>();
        var current = new List<byte>();
        long inflated = 0;
        InflateOutcome outcome = InflateOutcome.Ok;
        try
        {
            for (int f = 0; f < fragments.Count && outcome == InflateOutcome.Ok; f++)
            {
                (int start, int length, bool final) = fragments[f];
                foreach ((int pieceStart, int pieceLength) in Splits.Pieces(length, cuts?[f] ?? []))
                {
                    bool last = pieceStart + pieceLength == length;
                    bool within;
                    try
                    {
                        within = inflater.Inflate(input.AsSpan(start + pieceStart, pieceLength), final && last, buffer, limit, ref inflated);
                    }
                    catch (InvalidDataException)
                    {
                        current.AddRange(buffer.Written.ToArray());
                        buffer.Reset();
                        inflater.Reset();
                        outcome = InflateOutcome.Invalid;
                        break;
                    }

                    current.AddRange(buffer.Written.ToArray());
                    buffer.Reset();
                    if (inflated != current.Count)
                    {
                        throw new OracleFailureException($"the inflater counted {inflated} bytes but wrote {current.Count}");
                    }

                    if (inflated > limit + 1 || (within && inflated > limit) || (!within && inflated <= limit))
                    {
                        throw new OracleFailureException($"{inflated} bytes inflated, limit {limit}, within {within}");
                    }

                    if (!within)
                    {
                        outcome = InflateOutcome.TooBig;
                        break;
                    }
                }

                if (outcome == InflateOutcome.Ok && final)
                {
                    messages.Add([.. current]);
                    current.Clear();
                    inflated = 0;
                    if (release)
                    {
                        buffer.Release();
                        inflater.ReleaseBuffers();
                    }
                }
            }
        }
        finally
        {
            inflater.Dispose();
            buffer.Release();
        }

        pool.AssertBalanced("after the inflater was disposed");
        return new InflateRun(messages, [.. current], outcome, messages.Count);
    }

    /// <summary>Fails unless <paramref name="other"/> ended the same way with the same messages. A failure may be found
    /// as invalid data in one and as too big in the other (a message both invalid and over the limit: the caller checks
    /// the data is invalid), and what the failing message had inflated may then differ by where the pieces ended: one
    /// must be a prefix of the other.</summary>
    public void AssertSame(InflateRun other, string what)
    {
        ArgumentNullException.ThrowIfNull(other);
        bool bothFailed = Outcome != InflateOutcome.Ok && other.Outcome != InflateOutcome.Ok;
        bool same = (Outcome == other.Outcome || bothFailed) && Failed == other.Failed && Messages.Count == other.Messages.Count
            && Messages.Zip(other.Messages).All(p => p.First.AsSpan().SequenceEqual(p.Second))
            && (Outcome == InflateOutcome.Invalid || other.Outcome == InflateOutcome.Invalid ? PrefixRelated(Partial, other.Partial) : Partial.AsSpan().SequenceEqual(other.Partial));
        if (!same)
        {
            throw new OracleFailureException($"{what}: {this} vs {other}");
        }
    }

    /// <summary>Whether one of the two is a prefix of the other.</summary>
    public static bool PrefixRelated(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b) =>
        a.Length <= b.Length ? b.StartsWith(a) : a.StartsWith(b);

    /// <inheritdoc />
    public override string ToString() =>
        $"{Outcome} after {Messages.Count} messages ({string.Join("/", Messages.Select(m => m.Length))} B), {Partial.Length} B under way";
}
