namespace WebSocketCodec.Fuzz;

/// <summary>
/// The Akka.Remote transport's association reader (<see cref="WebSocketCodec.Akka.AssociationReader"/>) over mutated
/// frame streams (the frame seeds, read by the role they were made for), driven by <see cref="AkkaDrive"/>. Oracles:
/// the websocket's run ends (no hang) without an exception; Akka gets each binary message as one payload, then exactly
/// one <c>Disassociated</c> last (an <c>UnderlyingTransportError</c> just before it only when the websocket failed);
/// memory stays bounded: no payload is over the message limit, all payloads together are no longer than the input,
/// and every pooled array is back; the websocket ends with no error; the input cut at random points, and Akka's listener registered only after all the input arrived, give the same
/// events and the same end.
/// </summary>
public sealed class AkkaTarget : IFuzzTarget
{
    private static readonly long[] Limits = [0, 1, 125, 126, 65536, 1024 * 1024];
    private static readonly TimeSpan Stall = TimeSpan.FromSeconds(20);

    /// <inheritdoc />
    public string Name => "akka";

    /// <inheritdoc />
    public Mutator Mutator { get; } = new(FrameSeeds.All, frames: true);

    /// <inheritdoc />
    public bool IsDocumented(Exception exception) => false;

    /// <inheritdoc />
    public void Run(CorpusEntry entry, byte[] input, FuzzContext context)
    {
        ArgumentNullException.ThrowIfNull(entry);
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(context);
        FuzzRng rng = context.Rng;
        WebSocketRole role = entry.Role ?? WebSocketRole.Server;
        long limit = rng.OneIn(3) ? rng.Pick(Limits) : WebSocketSessionOptions.Default.MaxMessagePayloadLength;
        WebSocketSessionOptions options = WebSocketSessionOptions.Default with { MaxMessagePayloadLength = limit };
        AkkaTrace whole = AkkaDrive.Run(role, options, input, [], registerLate: false, Stall);
        context.Count(whole.Outcome);
        Check(whole, input.Length, limit);
        List<int[]> plans = Splits.Plans(input.Length, rng, randomPlans: 1);
        int[] cuts = plans.Count > 0 ? plans[^1] : [];
        AkkaTrace other = AkkaDrive.Run(role, options, input, cuts, registerLate: rng.OneIn(2), Stall);
        if (!other.Events.SequenceEqual(whole.Events) || other.Outcome != whole.Outcome)
        {
            throw new OracleFailureException(
                $"cut at {FrameTarget.Describe(cuts)}: {other.Outcome}, {other.Events.Count} events; whole: {whole.Outcome}, {whole.Events.Count} events; first difference: {FirstDifference(whole.Events, other.Events)}");
        }
    }

    private static void Check(AkkaTrace trace, int inputLength, long limit)
    {
        List<string> events = trace.Events;
        if (events.Count == 0 || !events[^1].StartsWith("Disassociated ", StringComparison.Ordinal) || events.Count(e => e.StartsWith("Disassociated ", StringComparison.Ordinal)) != 1)
        {
            throw new OracleFailureException($"the events do not end with one Disassociated: {string.Join(" | ", events.Select(Short))}");
        }

        bool failed = trace.Info.EndReason is WebSocketEndReason.Error or WebSocketEndReason.ProtocolViolation;
        int errors = events.Count(e => e == "UnderlyingTransportError");
        if (errors != (failed ? 1 : 0) || (failed && events[^2] != "UnderlyingTransportError"))
        {
            throw new OracleFailureException($"{errors} transport errors reported for an end of {trace.Info.EndReason}: {string.Join(" | ", events.Select(Short))}");
        }

        if (trace.Info.Error is { } error)
        {
            throw new OracleFailureException($"the websocket ended with an error: {error.GetType().Name}: {error.Message}");
        }

        long total = 0;
        foreach (string e in events.Where(e => e.StartsWith("payload ", StringComparison.Ordinal)))
        {
            long length = (e.Length - "payload ".Length) / 2;
            total += length;
            if (length > limit)
            {
                throw new OracleFailureException($"a payload of {length} B passed the message limit {limit}");
            }
        }

        if (total > inputLength)
        {
            throw new OracleFailureException($"{total} B of payloads from {inputLength} B of input");
        }
    }

    private static string Short(string e) => e.Length > 60 ? e[..60] + "..." : e;

    private static string FirstDifference(List<string> a, List<string> b)
    {
        for (int i = 0; i < Math.Max(a.Count, b.Count); i++)
        {
            string? x = i < a.Count ? a[i] : null;
            string? y = i < b.Count ? b[i] : null;
            if (x != y)
            {
                return $"event {i}: '{(x is null ? "none" : Short(x))}' vs '{(y is null ? "none" : Short(y))}'";
            }
        }

        return "none";
    }
}
