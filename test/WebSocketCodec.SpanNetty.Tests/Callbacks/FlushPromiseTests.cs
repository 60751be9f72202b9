namespace WebSocketCodec.SpanNetty.Tests.Callbacks;

/// <summary>The reused promise of a flush's last write: it reports once per use, its task (made only when asked for)
/// tells the same outcome, and a reset makes it new for the next flush.</summary>
public sealed class FlushPromiseTests
{
    [Fact]
    public void ItReportsOnceAndATaskAskedForAfterwardsHasTheOutcome()
    {
        var reports = new List<bool>();
        var promise = new FlushPromise((_, taken) => reports.Add(taken));
        Assert.True(promise.SetUncancellable());
        Assert.False(promise.IsCompleted);

        Assert.True(promise.TryComplete());
        Assert.False(promise.TryComplete());
        Assert.False(promise.TrySetException(new IOException("late")));
        Assert.Throws<InvalidOperationException>(promise.Complete);

        Assert.Equal([true], reports);
        Assert.True(promise.IsSuccess);
        Assert.True(promise.Task.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task AFailureReachesATaskAskedForBeforeAndIsReportedAsNotTaken()
    {
        var reports = new List<bool>();
        var promise = new FlushPromise((_, taken) => reports.Add(taken));
        Task task = promise.Task;
        Assert.False(task.IsCompleted);

        Assert.True(promise.TrySetException(new IOException("reset")));

        Assert.Equal([false], reports);
        Assert.True(promise.IsFaulted);
        IOException error = await Assert.ThrowsAsync<IOException>(() => task);
        Assert.Equal("reset", error.Message);
    }

    [Fact]
    public void AnUncancellablePromiseIsNotCancelledAndACancelledOneIsNotMadeUncancellable()
    {
        var reports = new List<bool>();
        var held = new FlushPromise((_, taken) => reports.Add(taken));
        Assert.True(held.SetUncancellable());
        Assert.False(held.TrySetCanceled());
        Assert.False(held.IsCompleted);

        var free = new FlushPromise((_, taken) => reports.Add(taken));
        Assert.True(free.TrySetCanceled());
        Assert.False(free.SetUncancellable());
        Assert.True(free.IsCanceled);
        Assert.True(free.Task.IsCanceled);
        Assert.Equal([false], reports);
    }

    [Fact]
    public void AResetPromiseIsNewAgainWithANewTask()
    {
        int reports = 0;
        var promise = new FlushPromise((_, _) => reports++);
        Task first = promise.Task;
        Assert.True(promise.TryComplete());

        promise.Reset();

        Assert.False(promise.IsCompleted);
        Task second = promise.Task;
        Assert.NotSame(first, second);
        Assert.False(second.IsCompleted);
        Assert.True(promise.TrySetException(new IOException("gone")));
        Assert.True(first.IsCompletedSuccessfully); // the first use keeps its outcome
        Assert.True(second.IsFaulted);
        Assert.Equal(2, reports);
    }
}
