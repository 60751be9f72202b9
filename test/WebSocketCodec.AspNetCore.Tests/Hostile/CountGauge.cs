namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A count that goes up and down (open websockets, open connections) and lets a test wait, without polling,
/// until it is at most some value.</summary>
public sealed class CountGauge
{
    private readonly Lock _sync = new();
    private readonly List<(Func<long, bool> Condition, TaskCompletionSource Done)> _waiters = [];
    private long _value;

    public long Value
    {
        get
        {
            lock (_sync)
            {
                return _value;
            }
        }
    }

    public void Add(long delta)
    {
        lock (_sync)
        {
            _value += delta;
            _waiters.RemoveAll(waiter => waiter.Condition(_value) && waiter.Done.TrySetResult());
        }
    }

    /// <summary>Completes when the count is at most <paramref name="limit"/>.</summary>
    public Task WhenAtMostAsync(long limit, CancellationToken cancellationToken) => WhenAsync(value => value <= limit, cancellationToken);

    /// <summary>Completes when the count is at least <paramref name="limit"/>.</summary>
    public Task WhenAtLeastAsync(long limit, CancellationToken cancellationToken) => WhenAsync(value => value >= limit, cancellationToken);

    private Task WhenAsync(Func<long, bool> condition, CancellationToken cancellationToken)
    {
        lock (_sync)
        {
            if (condition(_value))
            {
                return Task.CompletedTask;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((condition, done));
            return done.Task.WaitAsync(cancellationToken);
        }
    }
}
