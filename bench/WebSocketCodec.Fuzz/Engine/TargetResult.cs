namespace WebSocketCodec.Fuzz;

/// <summary>What one target's run did.</summary>
/// <param name="Target">The target.</param>
/// <param name="Inputs">Inputs run.</param>
/// <param name="Elapsed">Time taken.</param>
/// <param name="ViolationCount">Violations found (all of them).</param>
/// <param name="Violations">The first few of each kind.</param>
/// <param name="Kinds">Violations by kind (<see cref="FuzzViolation.Signature"/>).</param>
/// <param name="Outcomes">What the inputs reached, counted.</param>
public sealed record TargetResult(
    string Target, long Inputs, TimeSpan Elapsed, long ViolationCount, IReadOnlyList<FuzzViolation> Violations,
    IReadOnlyDictionary<string, long> Kinds, IReadOnlyDictionary<string, long> Outcomes)
{
    /// <summary>Inputs per second.</summary>
    public double InputsPerSecond => Elapsed.TotalSeconds > 0 ? Inputs / Elapsed.TotalSeconds : 0;
}
