namespace WebSocketCodec.Lean.Loop;

/// <summary>One timer of a <see cref="LoopTimers"/> wheel: a node of its slot's list, fired on the loop.</summary>
internal sealed class LoopTimer(LoopTimers wheel, TimerCallback callback, object? state) : ITimer
{
    private long _periodMilliseconds = -1; // -1: fires once

    internal LoopTimer? Next { get; set; }

    internal LoopTimer? Previous { get; set; }

    /// <summary>The wheel's tick it fires at (while linked).</summary>
    internal long DueTick { get; set; }

    internal bool IsLinked { get; set; }

    internal bool IsDisposed { get; private set; }

    public bool Change(TimeSpan dueTime, TimeSpan period)
    {
        if (IsDisposed)
        {
            return false;
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(dueTime, Timeout.InfiniteTimeSpan);
        ArgumentOutOfRangeException.ThrowIfLessThan(period, Timeout.InfiniteTimeSpan);
        Volatile.Write(ref _periodMilliseconds, period == Timeout.InfiniteTimeSpan || period == TimeSpan.Zero ? -1 : (long)Math.Ceiling(period.TotalMilliseconds));
        wheel.Schedule(this, dueTime);
        return true;
    }

    /// <summary>Runs the callback (on the loop, the timer unlinked), then re-arms a periodic timer.</summary>
    internal void Fire()
    {
        if (IsDisposed)
        {
            return;
        }

        callback(state);
        long period = Volatile.Read(ref _periodMilliseconds);
        if (period > 0 && !IsDisposed && !IsLinked)
        {
            wheel.Schedule(this, TimeSpan.FromMilliseconds(period));
        }
    }

    public void Dispose()
    {
        IsDisposed = true;
        wheel.Schedule(this, Timeout.InfiniteTimeSpan); // unlinks it
    }

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }
}
