namespace WebSocketCodec.Fuzz;

/// <summary>
/// The permessage-deflate inflater (<see cref="MessageInflater"/> into an <see cref="InflateBuffer"/>, as the session
/// drives it) over mutated fragment sequences (<see cref="InflateRecords"/>), context kept or not, under message
/// limits from 0 to 1 MiB. Oracles: nothing but <see cref="System.IO.InvalidDataException"/> is thrown (the session
/// maps it to 1007; the limit's <c>false</c> to 1009); no message inflates past the limit, and one past it stops at
/// exactly one byte over; each context's output agrees with <see cref="ReferenceInflate"/> (the same bytes, or both
/// invalid with one output a prefix of the other, or the library stopped at the limit where the reference has more or
/// fails later); an unmutated seed inflates to the messages it was made from; the fragments cut at random points give
/// the same messages and outcome; every pooled array is returned.
/// </summary>
/// <remarks>The negotiated window bits are not an input of the inflater: RFC 7692 §7.1.2 bounds the peer's compressor,
/// and the library's inflater reads any window up to 15 bits (<see cref="PerMessageDeflateOptions.PeerMaxWindowBits"/>
/// documents it), so a message using a larger window than negotiated is inflated, not refused.</remarks>
public sealed class InflateTarget : IFuzzTarget
{
    private static readonly long[] Limits = [0, 1, 4, 5, 100, 1000, 4096, 16 * 1024, 16 * 1024 + 1, 64 * 1024, 1024 * 1024];

    /// <inheritdoc />
    public string Name => "inflate";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(InflateSeeds.All, frames: false);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        bool seedShares = InflateSeeds.TryGetExpected(entry.Name, out byte[][] expected, out bool shared) && shared;
        bool keepContext = seedShares ? !rng.OneIn(4) : rng.OneIn(2);
        long limit = rng.OneIn(3) ? rng.Pick(Limits) : rng.OneIn(2) ? rng.Next(2000) : 1024 * 1024;
        List<(int Start, int Length, bool Final)> fragments = InflateRecords.Read(input);
        InflateRun whole = InflateRun.Drive(input, fragments, keepContext, limit, cuts: null, release: rng.OneIn(2));
        context.Count(whole.Outcome switch
        {
            InflateOutcome.Ok => whole.Partial.Length > 0 ? "ok, last message unfinished" : "ok",
            InflateOutcome.Invalid => "1007 (invalid)",
            _ => "1009 (too big)",
        });
        CheckAgainstReference(input, fragments, keepContext, limit, whole, context);
        if (input.AsSpan().SequenceEqual(entry.Bytes) && expected.Length > 0 && (keepContext || !shared) && expected.All(m => m.Length <= limit))
        {
            if (whole.Outcome != InflateOutcome.Ok || whole.Messages.Count != expected.Length
                || !whole.Messages.Zip(expected).All(p => p.First.AsSpan().SequenceEqual(p.Second)))
            {
                throw new OracleFailureException($"the seed '{entry.Name}' did not inflate to its messages: {whole}");
            }

            context.Count("seed inflated to its messages");
        }

        for (int plan = 0; plan < 2; plan++)
        {
            int[][] cuts = [.. fragments.Select(f => f.Length > 1 ? Splits.Plans(f.Length, rng, randomPlans: 1)[^1] : [])];
            InflateRun split = InflateRun.Drive(input, fragments, keepContext, limit, cuts, release: rng.OneIn(2));
            whole.AssertSame(split, "whole fragments and fragments cut");
            if (split.Outcome != whole.Outcome)
            {
                // A message both invalid and over the limit: which is found first depends on where zlib's reads
                // stop (its failing read's output is lost), so the cut may turn 1009 into 1007 or back; the
                // reference must find the data invalid.
                CheckAgainstReference(input, fragments, keepContext, limit, split, context);
                context.Count("1007 or 1009 by where the fragments were cut");
            }
        }
    }

    /// <summary>Compares each context (all messages when kept, each message when not) with the reference inflate of
    /// the same bytes, up to the end of the message that failed.</summary>
    private static void CheckAgainstReference(
        byte[] input, List<(int Start, int Length, bool Final)> fragments, bool keepContext, long limit, InflateRun run, FuzzContext context)
    {
        // The messages the drive reached: the whole ones, and the one under way (failed or unfinished).
        var groups = new List<List<(int Start, int Length, bool Final)>>();
        var group = new List<(int, int, bool)>();
        foreach (var fragment in fragments)
        {
            group.Add(fragment);
            if (fragment.Final)
            {
                groups.Add(group);
                group = [];
                if (groups.Count > run.Failed)
                {
                    break;
                }
            }
        }

        if (group.Count > 0 && groups.Count <= run.Failed)
        {
            groups.Add(group);
        }

        var outputs = new List<byte[]>(run.Messages) { run.Partial };
        if (keepContext)
        {
            byte[] joined = [.. outputs.SelectMany(o => o)];
            Compare(ReferenceInflate.Join(input, groups.SelectMany(g => g)), joined, run.Outcome, limit, context);
            return;
        }

        for (int m = 0; m < groups.Count; m++)
        {
            bool failing = m == run.Failed;
            Compare(ReferenceInflate.Join(input, groups[m]), outputs[m], failing ? run.Outcome : InflateOutcome.Ok, limit, context);
        }
    }

    private static void Compare(byte[] compressed, byte[] library, InflateOutcome outcome, long limit, FuzzContext context)
    {
        // The cap: exactly the library's output past the limit; one byte more where the library took all; for invalid
        // data, a whole message more (the library may have stopped short of the bytes its failing read produced).
        long cap = outcome switch
        {
            InflateOutcome.Ok => library.Length + 1L,
            InflateOutcome.Invalid => library.Length + limit + 1,
            _ => library.Length,
        };
        (byte[] reference, bool invalid) = ReferenceInflate.Inflate(compressed, cap);
        bool agree = outcome switch
        {
            InflateOutcome.Ok => !invalid && reference.AsSpan().SequenceEqual(library),
            InflateOutcome.Invalid => invalid && InflateRun.PrefixRelated(reference, library),
            _ => invalid ? InflateRun.PrefixRelated(reference, library) : reference.AsSpan().SequenceEqual(library),
        };
        if (!agree)
        {
            throw new OracleFailureException(
                $"the library's {outcome} ({library.Length} B, limit {limit}) disagrees with the reference inflate ({reference.Length} B{(invalid ? ", invalid" : string.Empty)})");
        }

        if (outcome == InflateOutcome.TooBig && invalid)
        {
            context.Count("1009 where the reference finds the data invalid past the limit");
        }
    }
}
