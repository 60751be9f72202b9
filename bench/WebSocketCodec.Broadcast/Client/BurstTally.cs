using System.Diagnostics;
using HdrHistogram;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// The client process's tally in the burst mode: every websocket publishes messages of its own (payload: the sender's
/// <see cref="Stopwatch.GetTimestamp"/> when it sent them, 8 bytes, its sequence number, 4 bytes, its index, 4 bytes,
/// then zeros) and the server relays each to every member. Per burst: how many messages every websocket must have by
/// its end (<see cref="Expected"/>, cumulative), the delivery latency of every receipt (receipt minus the sender's
/// stamp) and the receipts' latest time. Thread-safe (every websocket's read loop records here).
/// </summary>
internal sealed class BurstTally(int webSockets)
{
    private readonly object _closes = new();
    private readonly SortedDictionary<int, int> _closeCodes = [];
    private ThreadLocal<LongHistogram> _latency = NewHistogram();
    private ThreadLocal<LongHistogram> _arrival = NewHistogram();
    private long _start;
    private long _expected;
    private int _outOfOrder;
    private int _unexpected;

    /// <summary>The websockets that publish: each one's index is a sender index in the payloads.</summary>
    public int WebSockets => webSockets;

    /// <summary>Messages every websocket must have received by the end of the current burst (all bursts so far).</summary>
    public long Expected => Interlocked.Read(ref _expected);

    /// <summary>Receipts out of their sender's order (a gap or a repeat), all bursts.</summary>
    public int OutOfOrder => Volatile.Read(ref _outOfOrder);

    /// <summary>Frames that were not a relayed message of this run's senders, all bursts.</summary>
    public int Unexpected => Volatile.Read(ref _unexpected);

    /// <summary>The current burst's delivery latencies, ns, so far (the threads' histograms added up: read it when the
    /// burst is over).</summary>
    public LongHistogram Latency() => Sum(_latency);

    /// <summary>The current burst's receipt times, ns since its start (when the receipts arrived, whatever their stamps).</summary>
    public LongHistogram Arrival() => Sum(_arrival);

    /// <summary>The share (0 to 1) of the current burst's receipts that had arrived by <paramref name="timestamp"/>
    /// (Stopwatch).</summary>
    public double ArrivedBy(long timestamp)
    {
        LongHistogram arrival = Arrival();
        long by = Nanoseconds(timestamp - Interlocked.Read(ref _start));
        if (arrival.TotalCount == 0 || timestamp <= Interlocked.Read(ref _start))
        {
            return 0;
        }

        long count = arrival.RecordedValues().Where(v => v.ValueIteratedTo <= by).Sum(v => v.CountAtValueIteratedTo);
        return (double)count / arrival.TotalCount;
    }

    private static LongHistogram Sum(ThreadLocal<LongHistogram> parts)
    {
        var sum = new LongHistogram(1, MaxNs, 3);
        foreach (LongHistogram part in Volatile.Read(ref parts).Values)
        {
            sum.Add(part);
        }

        return sum;
    }

    /// <summary>Starts a burst: <paramref name="senders"/> websockets publish <paramref name="messages"/> each, and the
    /// latencies recorded from now on are this burst's. Call before any of them sends.</summary>
    public void Begin(int senders, int messages, long start)
    {
        Volatile.Write(ref _latency, NewHistogram()); // the last burst's stays to the collector
        Volatile.Write(ref _arrival, NewHistogram());
        Interlocked.Exchange(ref _start, start);
        Interlocked.Add(ref _expected, (long)senders * messages);
    }

    /// <summary>One receipt at <paramref name="receivedAt"/> of a message stamped <paramref name="stamp"/> (Stopwatch).</summary>
    public void Arrived(long stamp, long receivedAt)
    {
        Volatile.Read(ref _latency).Value!.RecordValue(Nanoseconds(receivedAt - stamp));
        Volatile.Read(ref _arrival).Value!.RecordValue(Nanoseconds(receivedAt - Interlocked.Read(ref _start)));
    }

    private static long Nanoseconds(long ticks) => Math.Clamp((long)(ticks * (1e9 / Stopwatch.Frequency)), 1, MaxNs);

    public void OutOfOrderArrival() => Interlocked.Increment(ref _outOfOrder);

    public void UnexpectedFrame() => Interlocked.Increment(ref _unexpected);

    /// <summary>A websocket got the server's Close with <paramref name="code"/> (1005 for none).</summary>
    public void Closed(int code)
    {
        lock (_closes)
        {
            _closeCodes[code] = _closeCodes.GetValueOrDefault(code) + 1;
        }
    }

    /// <summary>The close codes the server sent, with counts: <c>1008×3</c>, or empty.</summary>
    public string CloseCodes()
    {
        lock (_closes)
        {
            return string.Join(' ', _closeCodes.Select(c => $"{c.Key}×{c.Value}"));
        }
    }

    /// <summary>Websockets that got a Close.</summary>
    public int ClosedCount()
    {
        lock (_closes)
        {
            return _closeCodes.Values.Sum();
        }
    }

    private const long MaxNs = 600_000_000_000;

    /// <summary>One histogram per thread that records (the read loops' threads), so receipts never contend.</summary>
    private static ThreadLocal<LongHistogram> NewHistogram() => new(() => new LongHistogram(1, MaxNs, 3), trackAllValues: true);
}
