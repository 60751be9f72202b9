using System.Collections.Concurrent;
using HdrHistogram;
using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Scale;

/// <summary>What one process's websockets measured, safe to record from any thread: handshake and round-trip
/// histograms (nanoseconds, HdrHistogram's concurrent histogram), messages and batches sent, and failures counted by
/// reason.</summary>
internal sealed class LoadStats
{
    private readonly LongConcurrentHistogram _handshakes = LatencyRecording.CreateConcurrent();
    private readonly LongConcurrentHistogram _roundTrips = LatencyRecording.CreateConcurrent();
    private long _batches;
    private long _messages;

    public ConcurrentDictionary<string, int> Failures { get; } = new();

    public long Batches => Interlocked.Read(ref _batches);

    public long Messages => Interlocked.Read(ref _messages);

    public void RecordHandshake(TimeSpan elapsed) => LatencyRecording.Record(_handshakes, elapsed.Ticks * 100);

    public void RecordRoundTrip(TimeSpan elapsed) => LatencyRecording.Record(_roundTrips, elapsed.Ticks * 100);

    public void AddBatch(int messages)
    {
        Interlocked.Increment(ref _batches);
        Interlocked.Add(ref _messages, messages);
    }

    public void Fail(string reason) => Failures.AddOrUpdate(reason, 1, (_, count) => count + 1);

    /// <summary>The handshake times so far, as [value, count] pairs.</summary>
    public long[][] HandshakeBuckets() => LatencyRecording.ToPairs(_handshakes);

    /// <summary>The round trips so far, as [value, count] pairs.</summary>
    public long[][] RoundTripBuckets() => LatencyRecording.ToPairs(_roundTrips);
}
