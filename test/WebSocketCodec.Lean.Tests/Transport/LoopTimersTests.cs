using System.Diagnostics;
using WebSocketCodec.Lean.Loop;

namespace WebSocketCodec.Lean.Tests.Transport;

/// <summary>The loop's timer wheel on a clock the test turns: timers fire on the loop's turn of the wheel, never before
/// their time and at most a tick after it, once (or every period), not after being disarmed or disposed, and across
/// more than one round of the wheel; the first timer armed from another thread wakes the loop.</summary>
public sealed class LoopTimersTests
{
    private static readonly long Millisecond = Stopwatch.Frequency / 1000;

    private long _now = 1_000 * Stopwatch.Frequency;
    private int _wakes;
    private bool _onLoop = true;

    private LoopTimers NewWheel() => new(() => _wakes++, () => _onLoop, () => _now);

    private void Advance(LoopTimers wheel, int milliseconds, List<string>? errors = null)
    {
        // Turned as a loop would: at least once per tick.
        for (int left = milliseconds; left > 0; left -= Math.Min(left, LoopTimers.TickMilliseconds))
        {
            _now += Math.Min(left, LoopTimers.TickMilliseconds) * Millisecond;
            wheel.RunDue(error => errors?.Add(error.Message));
        }
    }

    [Fact]
    public void ATimerFiresOnceAtItsTimeAndNotBefore()
    {
        LoopTimers wheel = NewWheel();
        int fired = 0;
        using ITimer timer = wheel.CreateTimer(_ => fired++, null, TimeSpan.FromMilliseconds(120), Timeout.InfiniteTimeSpan);
        Assert.Equal(1, wheel.Armed);

        Advance(wheel, 100);
        Assert.Equal(0, fired);
        Advance(wheel, 100); // 200 ms: at most one tick past 120 ms, rounded up to ticks
        Assert.Equal(1, fired);
        Assert.Equal(0, wheel.Armed);
        Advance(wheel, 1_000);
        Assert.Equal(1, fired);
    }

    [Fact]
    public void ReArmingMovesTheTimerAndDisarmingOrDisposingStopsIt()
    {
        LoopTimers wheel = NewWheel();
        int moved = 0;
        int disarmed = 0;
        int disposed = 0;
        ITimer moving = wheel.CreateTimer(_ => moved++, null, TimeSpan.FromMilliseconds(100), Timeout.InfiniteTimeSpan);
        ITimer stopping = wheel.CreateTimer(_ => disarmed++, null, TimeSpan.FromMilliseconds(100), Timeout.InfiniteTimeSpan);
        ITimer gone = wheel.CreateTimer(_ => disposed++, null, TimeSpan.FromMilliseconds(100), Timeout.InfiniteTimeSpan);

        Advance(wheel, 50);
        Assert.True(moving.Change(TimeSpan.FromMilliseconds(500), Timeout.InfiniteTimeSpan));
        Assert.True(stopping.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan));
        gone.Dispose();
        Assert.False(gone.Change(TimeSpan.FromMilliseconds(10), Timeout.InfiniteTimeSpan));
        Assert.Equal(1, wheel.Armed);

        Advance(wheel, 450); // 500 ms: the moved timer is due at 550 ms at the earliest
        Assert.Equal(0, moved);
        Advance(wheel, 150);
        Assert.Equal((1, 0, 0), (moved, disarmed, disposed));
        moving.Dispose();
        stopping.Dispose();
    }

    [Fact]
    public void ATimerBeyondOneRoundOfTheWheelWaitsForItsOwnRound()
    {
        LoopTimers wheel = NewWheel();
        int fired = 0;
        using ITimer timer = wheel.CreateTimer(_ => fired++, null, TimeSpan.FromSeconds(125), Timeout.InfiniteTimeSpan);

        Advance(wheel, 124_900); // past two rounds of 51.2 s, the slot visited twice
        Assert.Equal(0, fired);
        Advance(wheel, 200);
        Assert.Equal(1, fired);
    }

    [Fact]
    public void ALoopThatSleptPastManyTicksStillFiresWhatIsDue()
    {
        LoopTimers wheel = NewWheel();
        int fired = 0;
        using ITimer early = wheel.CreateTimer(_ => fired++, null, TimeSpan.FromMilliseconds(60), Timeout.InfiniteTimeSpan);
        using ITimer late = wheel.CreateTimer(_ => fired += 10, null, TimeSpan.FromSeconds(200), Timeout.InfiniteTimeSpan);

        _now += 90_000 * Millisecond; // one turn after 90 s (more than a round)
        wheel.RunDue(_ => { });
        Assert.Equal(1, fired);
        Assert.Equal(1, wheel.Armed);
    }

    [Fact]
    public void APeriodicTimerFiresEveryPeriod()
    {
        LoopTimers wheel = NewWheel();
        int fired = 0;
        using ITimer timer = wheel.CreateTimer(_ => fired++, null, TimeSpan.FromMilliseconds(100), TimeSpan.FromMilliseconds(100));

        Advance(wheel, 1_050);
        Assert.InRange(fired, 8, 10); // every 100 ms, each up to a tick late
    }

    [Fact]
    public void AFailingCallbackIsReportedAndTheOthersStillFire()
    {
        LoopTimers wheel = NewWheel();
        var errors = new List<string>();
        int fired = 0;
        using ITimer failing = wheel.CreateTimer(_ => throw new InvalidOperationException("boom"), null, TimeSpan.FromMilliseconds(50), Timeout.InfiniteTimeSpan);
        using ITimer other = wheel.CreateTimer(_ => fired++, null, TimeSpan.FromMilliseconds(50), Timeout.InfiniteTimeSpan);

        Advance(wheel, 200, errors);
        Assert.Equal(["boom"], errors);
        Assert.Equal(1, fired);
    }

    [Fact]
    public void TheFirstTimerArmedOffTheLoopWakesItAndTheLoopSleepsOnlyWhileNoneIsArmed()
    {
        LoopTimers wheel = NewWheel();
        Assert.Equal(-1, wheel.SleepMilliseconds());

        _onLoop = false;
        using ITimer first = wheel.CreateTimer(_ => { }, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
        using ITimer second = wheel.CreateTimer(_ => { }, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
        Assert.Equal(1, _wakes); // the second found the loop counting ticks already
        Assert.InRange(wheel.SleepMilliseconds(), 0, LoopTimers.TickMilliseconds);

        _onLoop = true;
        first.Dispose();
        second.Dispose();
        using ITimer onLoop = wheel.CreateTimer(_ => { }, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
        Assert.Equal(1, _wakes); // armed on the loop: it computes its sleep itself
    }

    [Fact]
    public void ATimerArmedLateInATickStillWaitsItsWholeTime()
    {
        LoopTimers wheel = NewWheel();
        int fired = 0;
        _now += 49 * Millisecond; // 49 ms into the first tick
        using ITimer timer = wheel.CreateTimer(_ => fired++, null, TimeSpan.FromMilliseconds(50), Timeout.InfiniteTimeSpan);

        for (int elapsed = 0; elapsed < 49; elapsed++)
        {
            _now += Millisecond; // turned every millisecond: up to 1 ms short of its time
            wheel.RunDue(_ => { });
        }

        Assert.Equal(0, fired);
        Advance(wheel, 60);
        Assert.Equal(1, fired);
    }

    [Fact]
    public void ReArmingTheOnlyTimerOffTheLoopDoesNotWakeItAgain()
    {
        LoopTimers wheel = NewWheel();
        _onLoop = false;
        using ITimer timer = wheel.CreateTimer(_ => { }, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
        Assert.Equal(1, _wakes);
        for (int i = 0; i < 10; i++)
        {
            timer.Change(TimeSpan.FromSeconds(2 + i), Timeout.InfiniteTimeSpan);
        }

        Assert.Equal(1, _wakes);
        Assert.Equal(1, wheel.Armed);
    }

    [Fact]
    public void APeriodicTimerDisarmedByItsOwnCallbackStops()
    {
        LoopTimers wheel = NewWheel();
        int fired = 0;
        ITimer? timer = null;
        timer = wheel.CreateTimer(_ => { fired++; timer!.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan); }, null, TimeSpan.FromMilliseconds(100), TimeSpan.FromMilliseconds(100));
        Advance(wheel, 1_000);
        Assert.Equal(1, fired);
        Assert.Equal(0, wheel.Armed);
        timer.Dispose();
    }
}
