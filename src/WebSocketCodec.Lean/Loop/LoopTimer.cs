namespace WebSocketCodec.Lean.Loop;

/// <summary>One timer of a <see cref="LoopTimers"/> wheel: a node of its slot's list, fired on the loop.</summary>
internal sealed class LoopTimer(LoopTimers wheel, TimerCallback callback, object? state) : ITimer
{
    internal LoopTimer? Next { get; set; }

    internal LoopTimer? Previous { get; set; }

    /// <summary>The wheel's tick it fires at (while linked).</summary>
    internal long DueTick { get; set; }

    internal bool IsLinked { get; set; }

    internal bool IsDisposed { get; private set; }

    /// <summary>The period (set under the wheel's lock); -1: fires once.</summary>
    internal long PeriodMilliseconds { get; set; } = -1;

    public bool Change(TimeSpan dueTime, TimeSpan period)
    {
        if (IsDisposed)
        {
            return false;
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(dueTime, Timeout.InfiniteTimeSpan);
        ArgumentOutOfRangeException.ThrowIfLessThan(period, Timeout.InfiniteTimeSpan);
        wheel.Schedule(this, dueTime, period == Timeout.InfiniteTimeSpan || period == TimeSpan.Zero ? -1 : (long)Math.Ceiling(period.TotalMilliseconds));
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
        long period = PeriodMilliseconds; // after the callback, which may have disarmed it
        if (period > 0 && !IsDisposed && !IsLinked)
        {
            wheel.Schedule(this, TimeSpan.FromMilliseconds(period), period);
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
