using System.Diagnostics;

namespace WebSocketCodec.Lean.Loop;

/// <summary>
/// The timers of one loop's websockets (keep-alive, idle, close and slow-consumer deadlines) in a wheel the loop
/// turns itself: a timer is a small object linked into the slot of its tick, armed and re-armed in constant time from
/// any thread, and fired on the loop, so a due timer costs no thread-pool callback and no wake of the loop from
/// another thread. The loop sleeps at most one tick while any timer is armed. Ticks are
/// <see cref="TickMilliseconds"/> long: a timer fires up to one tick late, never early. The server's websockets get it
/// as their session options' <see cref="WebSocketSessionOptions.TimeProvider"/> (unless the application set one), so
/// <c>driver.Options.TimeProvider</c> is this wheel: its callbacks run on the loop.
/// </summary>
internal sealed class LoopTimers : TimeProvider
{
    /// <summary>The wheel's resolution.</summary>
    public const int TickMilliseconds = 50;

    private const int SlotCount = 1024; // 51.2 s around; a later timer waits in its slot for its round
    private static readonly long TickTimestamps = Stopwatch.Frequency * TickMilliseconds / 1000;

    private readonly LoopTimer?[] _slots = new LoopTimer?[SlotCount];
    private readonly Action _wake;
    private readonly Func<bool> _isOnLoop;
    private readonly Func<long> _clock;
    private readonly long _origin;
    private readonly List<LoopTimer> _due = [];
    private long _turned; // the last tick whose slot was run
    private int _armed;

    /// <param name="wake">Wakes the loop (another thread armed the first timer while it may sleep without a deadline).</param>
    /// <param name="isOnLoop">Whether the caller runs on the loop.</param>
    /// <param name="clock">The <see cref="Stopwatch"/> timestamp (tests turn their own).</param>
    public LoopTimers(Action wake, Func<bool> isOnLoop, Func<long>? clock = null)
    {
        _wake = wake;
        _isOnLoop = isOnLoop;
        _clock = clock ?? Stopwatch.GetTimestamp;
        _origin = _clock();
        _turned = CurrentTick;
    }

    /// <summary>Timers armed and not fired yet.</summary>
    public int Armed => Volatile.Read(ref _armed);

    private long CurrentTick => (_clock() - _origin) / TickTimestamps;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        ArgumentNullException.ThrowIfNull(callback);
        var timer = new LoopTimer(this, callback, state);
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>How long the loop may sleep: until the next tick while a timer is armed, else without a deadline (-1).</summary>
    public int SleepMilliseconds()
    {
        if (Armed == 0)
        {
            return -1;
        }

        long next = _origin + ((_turned + 1) * TickTimestamps);
        long wait = next - _clock();
        return wait <= 0 ? 0 : (int)Math.Min(TickMilliseconds, (wait * 1000 / Stopwatch.Frequency) + 1);
    }

    /// <summary>Fires every timer whose tick has come (on the loop), each callback outside the wheel's lock; an
    /// exception from one is handed to <paramref name="onError"/> and the others still run.</summary>
    public void RunDue(Action<Exception> onError)
    {
        long now = CurrentTick;
        if (now <= _turned)
        {
            return; // _turned is written on the loop only
        }

        lock (_slots)
        {
            if (_armed > 0)
            {
                // At most one round of slots: a timer further out than that waits in its slot for its own tick.
                long from = now - _turned >= SlotCount ? now - SlotCount + 1 : _turned + 1;
                for (long tick = from; tick <= now; tick++)
                {
                    LoopTimer? timer = _slots[tick & (SlotCount - 1)];
                    while (timer is not null)
                    {
                        LoopTimer? next = timer.Next;
                        if (timer.DueTick <= now)
                        {
                            UnlinkLocked(timer);
                            _due.Add(timer);
                        }

                        timer = next;
                    }
                }
            }

            _turned = now;
        }

        foreach (LoopTimer timer in _due)
        {
            try
            {
                timer.Fire();
            }
            catch (Exception error)
            {
                onError(error);
            }
        }

        _due.Clear();
    }

    /// <summary>Arms <paramref name="timer"/> for <paramref name="due"/> from now (then every
    /// <paramref name="periodMilliseconds"/> when above 0), or disarms it (infinite).</summary>
    internal void Schedule(LoopTimer timer, TimeSpan due, long periodMilliseconds = -1)
    {
        bool first;
        lock (_slots)
        {
            timer.PeriodMilliseconds = periodMilliseconds;
            bool noneArmed = _armed == 0;
            if (timer.IsLinked)
            {
                UnlinkLocked(timer);
            }

            if (due == Timeout.InfiniteTimeSpan || timer.IsDisposed)
            {
                return;
            }

            // The first tick that starts at or after the exact due time: never early, at most a tick late.
            long dueTimestamp = _clock() - _origin + (long)Math.Ceiling(due.TotalMilliseconds * Stopwatch.Frequency / 1000);
            timer.DueTick = Math.Max((dueTimestamp + TickTimestamps - 1) / TickTimestamps, _turned + 1);
            ref LoopTimer? head = ref _slots[timer.DueTick & (SlotCount - 1)];
            timer.Next = head;
            timer.Previous = null;
            if (head is not null)
            {
                head.Previous = timer;
            }

            head = timer;
            timer.IsLinked = true;
            _armed++;
            first = noneArmed; // a re-arm of the only timer finds the loop counting ticks already
        }

        if (first && !_isOnLoop())
        {
            _wake(); // the loop may sleep with no deadline
        }
    }

    private void UnlinkLocked(LoopTimer timer)
    {
        if (timer.Previous is null)
        {
            _slots[timer.DueTick & (SlotCount - 1)] = timer.Next;
        }
        else
        {
            timer.Previous.Next = timer.Next;
        }

        if (timer.Next is not null)
        {
            timer.Next.Previous = timer.Previous;
        }

        timer.Next = timer.Previous = null;
        timer.IsLinked = false;
        _armed--;
    }
}
