using System.Collections.Concurrent;
using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Scale;

/// <summary>What one process's websockets measured, safe to record from any thread: handshake and round-trip
/// histograms (nanoseconds), messages and batches sent, and failures counted by reason.</summary>
internal sealed class LoadStats
{
    private readonly LatencyHistogram _handshakes = new();
    private readonly LatencyHistogram _roundTrips = new();
    private long _batches;
    private long _messages;

    public ConcurrentDictionary<string, int> Failures { get; } = new();

    public long Batches => Interlocked.Read(ref _batches);

    public long Messages => Interlocked.Read(ref _messages);

    public void RecordHandshake(TimeSpan elapsed)
    {
        lock (_handshakes)
        {
            _handshakes.Record(elapsed.Ticks * 100);
        }
    }

    public void RecordRoundTrip(TimeSpan elapsed)
    {
        lock (_roundTrips)
        {
            _roundTrips.Record(elapsed.Ticks * 100);
        }
    }

    public void AddBatch(int messages)
    {
        Interlocked.Increment(ref _batches);
        Interlocked.Add(ref _messages, messages);
    }

    public void Fail(string reason) => Failures.AddOrUpdate(reason, 1, (_, count) => count + 1);

    /// <summary>A copy of the handshake histogram's buckets.</summary>
    public long[][] HandshakeBuckets()
    {
        lock (_handshakes)
        {
            return ToBuckets(_handshakes);
        }
    }

    /// <summary>A copy of the round-trip histogram's buckets.</summary>
    public long[][] RoundTripBuckets()
    {
        lock (_roundTrips)
        {
            return ToBuckets(_roundTrips);
        }
    }

    /// <summary>A histogram's buckets as [index, count] pairs (JSON-friendly).</summary>
    public static long[][] ToBuckets(LatencyHistogram histogram) => [.. histogram.Buckets().Select(b => new[] { b.Index, b.Count })];

    /// <summary>Adds [index, count] pairs to <paramref name="histogram"/>.</summary>
    public static void AddBuckets(LatencyHistogram histogram, long[][]? buckets)
    {
        foreach (long[] bucket in buckets ?? [])
        {
            histogram.AddBucket((int)bucket[0], bucket[1]);
        }
    }
}
