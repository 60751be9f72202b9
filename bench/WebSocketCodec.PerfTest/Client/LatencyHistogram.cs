namespace WebSocketCodec.PerfTest;

/// <summary>
/// A compact log-linear histogram of nanosecond values: 32 linear sub-buckets per power of two (about 3% precision),
/// fixed memory, no allocation per record. Stands in for HdrHistogram, which is not in the package registry here.
/// </summary>
public sealed class LatencyHistogram
{
    private const int SubBits = 5;
    private const int SubBuckets = 1 << SubBits;
    private readonly long[] _counts = new long[64 * SubBuckets];

    public long Count { get; private set; }

    public void Record(long nanoseconds)
    {
        _counts[Index(Math.Max(0, nanoseconds))]++;
        Count++;
    }

    public void Add(LatencyHistogram other)
    {
        ArgumentNullException.ThrowIfNull(other);
        for (int i = 0; i < _counts.Length; i++)
        {
            _counts[i] += other._counts[i];
        }

        Count += other.Count;
    }

    /// <summary>The non-empty buckets as (index, count) pairs, to carry a histogram to another process.</summary>
    public IEnumerable<(int Index, long Count)> Buckets()
    {
        for (int i = 0; i < _counts.Length; i++)
        {
            if (_counts[i] != 0)
            {
                yield return (i, _counts[i]);
            }
        }
    }

    /// <summary>Adds <paramref name="count"/> values to bucket <paramref name="index"/> (from <see cref="Buckets"/>).</summary>
    public void AddBucket(int index, long count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        _counts[index] += count;
        Count += count;
    }

    /// <summary>The largest value recorded, in nanoseconds (its bucket's upper bound); 0 when empty.</summary>
    public long Max()
    {
        for (int i = _counts.Length - 1; i >= 0; i--)
        {
            if (_counts[i] != 0)
            {
                return UpperBound(i);
            }
        }

        return 0;
    }

    public void Clear()
    {
        Array.Clear(_counts);
        Count = 0;
    }

    /// <summary>The value at <paramref name="percentile"/> (0-100), in nanoseconds (the bucket's upper bound).</summary>
    public long Percentile(double percentile)
    {
        if (Count == 0)
        {
            return 0;
        }

        long rank = (long)Math.Ceiling(percentile / 100.0 * Count);
        long seen = 0;
        for (int i = 0; i < _counts.Length; i++)
        {
            seen += _counts[i];
            if (seen >= Math.Max(1, rank))
            {
                return UpperBound(i);
            }
        }

        return UpperBound(_counts.Length - 1);
    }

    internal static int Index(long value)
    {
        if (value < SubBuckets)
        {
            return (int)value;
        }

        int exponent = 63 - (int)long.LeadingZeroCount(value); // >= SubBits
        int sub = (int)(value >> (exponent - SubBits)) & (SubBuckets - 1);
        return ((exponent - SubBits + 1) * SubBuckets) + sub;
    }

    internal static long UpperBound(int index)
    {
        if (index < SubBuckets)
        {
            return index;
        }

        int exponent = (index / SubBuckets) + SubBits - 1;
        long sub = index % SubBuckets;
        long low = (1L << exponent) | (sub << (exponent - SubBits));
        return low + (1L << (exponent - SubBits)) - 1;
    }
}
