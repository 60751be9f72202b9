using System.Threading.Tasks.Sources;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// Wakes the read loop while it waits for the output to drain: a reusable awaitable (no allocation per wait) that
/// remembers a wake that came before the wait. Spurious wakes are allowed: the loop checks its conditions again.
/// One waiter (the loop); any number of threads may call <see cref="Set"/>.
/// </summary>
internal sealed class LoopSignal : IValueTaskSource
{
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private int _signaled;
    private int _waiting;

    /// <summary>Completes at the next <see cref="Set"/>, or at once when one came since the last wait.</summary>
    public ValueTask WaitAsync()
    {
        if (Interlocked.Exchange(ref _signaled, 0) == 1)
        {
            return default;
        }

        _core.Reset();
        Volatile.Write(ref _waiting, 1);
        if (Volatile.Read(ref _signaled) == 1 && Interlocked.Exchange(ref _waiting, 0) == 1)
        {
            Volatile.Write(ref _signaled, 0);
            return default; // set in between: the waiter was taken back
        }

        return new ValueTask(this, _core.Version);
    }

    /// <summary>Wakes the waiter, or the next wait.</summary>
    public void Set()
    {
        Volatile.Write(ref _signaled, 1);
        if (Interlocked.Exchange(ref _waiting, 0) == 1)
        {
            Volatile.Write(ref _signaled, 0);
            _core.SetResult(true);
        }
    }

    void IValueTaskSource.GetResult(short token) => _core.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
