namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>The system's time, counting the timers made through it that are not disposed yet: after a client is
/// disposed, none of its timers (back-off waits, keep-alive, close timeouts) may be left.</summary>
public sealed class CountingTimeProvider : TimeProvider
{
    private int _live;
    private int _created;

    public int Live => Volatile.Read(ref _live);

    public int Created => Volatile.Read(ref _created);

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        Interlocked.Increment(ref _created);
        Interlocked.Increment(ref _live);
        return new CountedTimer(System.CreateTimer(callback, state, dueTime, period), this);
    }

    private sealed class CountedTimer(ITimer inner, CountingTimeProvider owner) : ITimer
    {
        private int _disposed;

        public bool Change(TimeSpan dueTime, TimeSpan period) => inner.Change(dueTime, period);

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _disposed, 1) == 0)
            {
                Interlocked.Decrement(ref owner._live);
            }

            inner.Dispose();
        }

        public ValueTask DisposeAsync()
        {
            Dispose();
            return ValueTask.CompletedTask;
        }
    }
}
