namespace WebSocketCodec.Broadcast.Server;

/// <summary>What the relay listeners of one server counted (fields, for <see cref="Interlocked"/>).</summary>
internal sealed class RelayCounts
{
    public long Relayed;
    public long Fragments;
    public int SlowEnded;

    /// <summary>When (<see cref="System.Diagnostics.Stopwatch"/>) the latest relay's broadcast returned.</summary>
    public long LastReturned;

    /// <summary>A relay's broadcast returned at <paramref name="timestamp"/>.</summary>
    public void Returned(long timestamp)
    {
        long last = Volatile.Read(ref LastReturned);
        while (timestamp > last)
        {
            long seen = Interlocked.CompareExchange(ref LastReturned, timestamp, last);
            if (seen == last)
            {
                return;
            }

            last = seen;
        }
    }
}
