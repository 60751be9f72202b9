using Microsoft.Extensions.Time.Testing;

namespace WebSocketCodec.Tests.Session;

/// <summary>The slow-consumer rule by progress: a waiting output is slow only after the timeout passes with the peer
/// taking none of its bytes; any progress starts the time again, and a writable output is never slow.</summary>
public sealed class SlowConsumerWatchTests
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(30);

    [Fact]
    public void AWaitingOutputWhosePeerTakesNothingIsSlowAfterTheTimeout()
    {
        var time = new FakeTimeProvider();
        var watch = new SlowConsumerWatch();
        watch.Waiting(time.GetTimestamp(), taken: 100);

        time.Advance(TimeSpan.FromSeconds(29));
        Assert.False(watch.Check(time, Timeout, taken: 100, out TimeSpan next));
        Assert.Equal(TimeSpan.FromSeconds(1), next); // what is left, under the polling interval

        time.Advance(TimeSpan.FromSeconds(1));
        Assert.True(watch.Check(time, Timeout, taken: 100, out _));
    }

    [Fact]
    public void ProgressStartsTheTimeAgainSoABusyButMovingOutputIsNeverSlow()
    {
        var time = new FakeTimeProvider();
        var watch = new SlowConsumerWatch();
        watch.Waiting(time.GetTimestamp(), taken: 0);
        long taken = 0;
        for (int i = 0; i < 20; i++)
        {
            time.Advance(TimeSpan.FromSeconds(20));
            taken += 1; // one byte taken in 20 s: slow, but moving
            Assert.False(watch.Check(time, Timeout, taken, out TimeSpan next));
            Assert.Equal(Timeout / 4, next);
        }

        time.Advance(Timeout);
        Assert.True(watch.Check(time, Timeout, taken, out _)); // then nothing for the whole timeout
    }

    [Fact]
    public void MoreWrittenMeanwhileIsNotProgress()
    {
        var time = new FakeTimeProvider();
        var watch = new SlowConsumerWatch();
        watch.Waiting(time.GetTimestamp(), taken: -5000); // 5,000 bytes pending
        time.Advance(TimeSpan.FromSeconds(20));
        Assert.False(watch.Check(time, Timeout, taken: -6000, out _)); // 1,000 more written, none taken
        time.Advance(TimeSpan.FromSeconds(10));
        Assert.True(watch.Check(time, Timeout, taken: -6000, out _));
    }

    [Fact]
    public void AWritableOutputIsNeverSlowAndZeroTurnsTheRuleOff()
    {
        var time = new FakeTimeProvider();
        var watch = new SlowConsumerWatch();
        Assert.False(watch.Check(time, Timeout, 0, out TimeSpan next));
        Assert.Equal(System.Threading.Timeout.InfiniteTimeSpan, next);

        watch.Waiting(time.GetTimestamp(), 0);
        Assert.True(watch.IsWaiting);
        time.Advance(TimeSpan.FromMinutes(5));
        Assert.False(watch.Check(time, TimeSpan.Zero, 0, out next));
        Assert.Equal(System.Threading.Timeout.InfiniteTimeSpan, next);

        watch.Writable();
        Assert.False(watch.IsWaiting);
        Assert.False(watch.Check(time, Timeout, 0, out _));
        Assert.Equal(System.Threading.Timeout.InfiniteTimeSpan, watch.NextDue(time, Timeout));
    }

    [Fact]
    public void NextDueIsTheTimeLeftOrThePollingIntervalWhicheverComesFirst()
    {
        var time = new FakeTimeProvider();
        var watch = new SlowConsumerWatch();
        watch.Waiting(time.GetTimestamp(), 0);
        Assert.Equal(Timeout / 4, watch.NextDue(time, Timeout));
        time.Advance(TimeSpan.FromSeconds(28));
        Assert.Equal(TimeSpan.FromSeconds(2), watch.NextDue(time, Timeout));
        time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal(TimeSpan.Zero, watch.NextDue(time, Timeout));
        Assert.Equal(TimeSpan.FromSeconds(1), SlowConsumerWatch.Earlier(System.Threading.Timeout.InfiniteTimeSpan, TimeSpan.FromSeconds(1)));
        Assert.Equal(TimeSpan.FromSeconds(1), SlowConsumerWatch.Earlier(TimeSpan.FromSeconds(2), TimeSpan.FromSeconds(1)));
    }
}
