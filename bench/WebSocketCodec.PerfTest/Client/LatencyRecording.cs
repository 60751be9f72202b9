using HdrHistogram;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// Round trips in nanoseconds, kept in HdrHistogram histograms of one shape (1 ns to one minute, three significant
/// digits): a load connection records into its own <see cref="LongHistogram"/> on its receive loop and the run adds
/// them up; where several threads record into one, <see cref="CreateConcurrent"/>.
/// </summary>
public static class LatencyRecording
{
    /// <summary>The longest round trip told apart: one minute. A longer one is recorded as one minute.</summary>
    public const long HighestNanoseconds = 60_000_000_000;

    private const int SignificantDigits = 3;

    /// <summary>A histogram for one recording thread.</summary>
    public static LongHistogram Create() => new(1, HighestNanoseconds, SignificantDigits);

    /// <summary>A histogram that several threads may record into at once.</summary>
    public static LongConcurrentHistogram CreateConcurrent() => new(1, HighestNanoseconds, SignificantDigits);

    /// <summary>Records <paramref name="nanoseconds"/> into <paramref name="histogram"/>, clamped to its range.</summary>
    public static void Record(HistogramBase histogram, long nanoseconds)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        histogram.RecordValue(Math.Clamp(nanoseconds, 0, HighestNanoseconds));
    }

    /// <summary>The value at <paramref name="percentile"/> (0-100) in nanoseconds (the highest value its bucket
    /// stands for), or 0 when nothing was recorded.</summary>
    public static long Percentile(HistogramBase histogram, double percentile)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        return histogram.TotalCount == 0 ? 0 : histogram.GetValueAtPercentile(percentile);
    }

    /// <summary>The recorded values as [value, count] pairs (JSON-friendly), to carry a histogram to another
    /// process.</summary>
    public static long[][] ToPairs(HistogramBase histogram)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        return [.. histogram.RecordedValues().Select(v => new[] { v.ValueIteratedTo, v.CountAtValueIteratedTo })];
    }

    /// <summary>Adds [value, count] pairs (from <see cref="ToPairs"/>) to <paramref name="histogram"/>.</summary>
    public static void AddPairs(HistogramBase histogram, long[][]? pairs)
    {
        ArgumentNullException.ThrowIfNull(histogram);
        foreach (long[] pair in pairs ?? [])
        {
            histogram.RecordValueWithCount(Math.Clamp(pair[0], 0, HighestNanoseconds), pair[1]);
        }
    }
}
