namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A count that goes up and down (open websockets, open connections) and lets a test wait, without polling,
/// until it is at most some value.</summary>
public sealed class CountGauge
{
    private readonly Lock _sync = new();
    private readonly List<(long Limit, TaskCompletionSource Done)> _waiters = [];
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
            _waiters.RemoveAll(waiter => _value <= waiter.Limit && waiter.Done.TrySetResult());
        }
    }

    /// <summary>Completes when the count is at most <paramref name="limit"/>.</summary>
    public Task WhenAtMostAsync(long limit, CancellationToken cancellationToken)
    {
        lock (_sync)
        {
            if (_value <= limit)
            {
                return Task.CompletedTask;
            }

            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            _waiters.Add((limit, done));
            return done.Task.WaitAsync(cancellationToken);
        }
    }
}
