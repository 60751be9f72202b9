using System.Diagnostics;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// A client process's tally of broadcasts: how many of its websockets have each one and the latest receipt time. When
/// the last of them has a broadcast, its delivery time (that receipt minus the server's stamp in the payload) is
/// handed to <c>delivered</c>. Thread-safe (every websocket's read loop records here).
/// </summary>
internal sealed class Deliveries(int webSockets, int broadcasts, Action<int, long> delivered)
{
    private readonly int[] _counts = new int[broadcasts];
    private readonly long[] _lastReceipt = new long[broadcasts];
    private long _received;
    private int _outOfOrder;
    private int _unexpected;

    public long Received => Interlocked.Read(ref _received);

    public int OutOfOrder => Volatile.Read(ref _outOfOrder);

    public int Unexpected => Volatile.Read(ref _unexpected);

    /// <summary>Broadcasts every websocket has.</summary>
    public int Complete => _counts.Count(c => c == webSockets);

    public void OutOfOrderArrival() => Interlocked.Increment(ref _outOfOrder);

    public void UnexpectedFrame() => Interlocked.Increment(ref _unexpected);

    /// <summary>One websocket received broadcast <paramref name="sequence"/> (stamped <paramref name="stamp"/> by the
    /// server) at <paramref name="receivedAt"/>.</summary>
    public void Arrived(int sequence, long stamp, long receivedAt)
    {
        if ((uint)sequence >= (uint)_counts.Length)
        {
            UnexpectedFrame();
            return;
        }

        Interlocked.Increment(ref _received);
        long last = Volatile.Read(ref _lastReceipt[sequence]);
        while (receivedAt > last)
        {
            long seen = Interlocked.CompareExchange(ref _lastReceipt[sequence], receivedAt, last);
            if (seen == last)
            {
                break;
            }

            last = seen;
        }

        // Every websocket raises the latest receipt before it counts, so the one that completes the count reads the
        // final latest receipt.
        if (Interlocked.Increment(ref _counts[sequence]) == webSockets)
        {
            long ticks = Volatile.Read(ref _lastReceipt[sequence]) - stamp;
            delivered(sequence, (long)(ticks * (1e9 / Stopwatch.Frequency)));
        }
    }
}
