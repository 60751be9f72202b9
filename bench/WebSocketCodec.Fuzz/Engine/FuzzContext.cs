namespace WebSocketCodec.Fuzz;

/// <summary>What a target gets besides the input: the input's own random generator (options, split points) and
/// counters of outcomes, which show in the report what the inputs reached.</summary>
public sealed class FuzzContext
{
    private readonly Dictionary<string, long> _outcomes;

    /// <summary>Creates a context.</summary>
    public FuzzContext(FuzzRng rng, Dictionary<string, long> outcomes)
    {
        Rng = rng;
        _outcomes = outcomes;
    }

    /// <summary>The input's generator.</summary>
    public FuzzRng Rng { get; }

    /// <summary>Counts one outcome.</summary>
    public void Count(string outcome) =>
        _outcomes[outcome] = _outcomes.TryGetValue(outcome, out long n) ? n + 1 : 1;
}
