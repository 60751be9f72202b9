namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>The runs of one (variant, client count): the median, min and max over the runs that completed, and how
/// many stalled or failed (those are never results); our transport's write refusals summed over the runs that
/// counted them (null: not observed).</summary>
public sealed record PingPongSummary(string Variant, int Clients, int Completed, int Stalled, int Failed, double Median, double Min, double Max, long? Refusals = null)
{
    /// <summary>Groups <paramref name="results"/> (the warm-up left out) by client count, then variant in the given order.</summary>
    public static IReadOnlyList<PingPongSummary> Of(IEnumerable<PingPongMeasurement> results, IReadOnlyList<string> variantOrder)
    {
        ArgumentNullException.ThrowIfNull(variantOrder);
        return [.. results.Where(r => r.Repeat > 0)
            .GroupBy(r => (r.Variant, r.Clients))
            .Select(group =>
            {
                double[] rates = [.. group.Where(r => r.Status == RunStatus.Ok).Select(r => r.MessagesPerSecond).Order()];
                return new PingPongSummary(group.Key.Variant, group.Key.Clients, rates.Length,
                    group.Count(r => r.Status == RunStatus.Stalled), group.Count(r => r.Status == RunStatus.Failed),
                    MedianOf(rates), rates.Length > 0 ? rates[0] : double.NaN, rates.Length > 0 ? rates[^1] : double.NaN,
                    group.Any(r => r.Refusals is not null) ? group.Sum(r => r.Refusals ?? 0) : null);
            })
            .OrderBy(s => s.Clients)
            .ThenBy(s => Rank(variantOrder, s.Variant))];
    }

    /// <summary>The baseline at <paramref name="clients"/>: of the DotNetty TCP variants (<see cref="PingPongVariants.Baselines"/>:
    /// default batching, batching off) that completed a run there, the one with the higher median; null when neither did.</summary>
    public static PingPongSummary? BaselineOf(IEnumerable<PingPongSummary> summaries, int clients) =>
        summaries.Where(s => s.Clients == clients && s.Completed > 0 && PingPongVariants.Baselines.Contains(s.Variant))
            .OrderByDescending(s => s.Median)
            .ThenBy(s => s.Variant, StringComparer.Ordinal)
            .FirstOrDefault();

    /// <summary>The median of sorted values (the mean of the middle two for an even count; NaN for none).</summary>
    public static double MedianOf(IReadOnlyList<double> sorted)
    {
        ArgumentNullException.ThrowIfNull(sorted);
        int n = sorted.Count;
        return n == 0 ? double.NaN : n % 2 == 1 ? sorted[n / 2] : (sorted[(n / 2) - 1] + sorted[n / 2]) / 2;
    }

    private static int Rank(IReadOnlyList<string> order, string variant)
    {
        for (int i = 0; i < order.Count; i++)
        {
            if (order[i] == variant)
            {
                return i;
            }
        }

        return order.Count;
    }
}
