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
    /// <remarks>Every step is an interlocked exchange (a full fence): with a plain write of <c>_waiting</c> followed by
    /// a read of <c>_signaled</c>, the processor may let the read pass the write, and a <see cref="Set"/> in between
    /// would see no waiter while the waiter saw no signal: the wake is lost and the loop sleeps until the next one.</remarks>
    public ValueTask WaitAsync()
    {
        if (Interlocked.Exchange(ref _signaled, 0) == 1)
        {
            return default;
        }

        _core.Reset();
        Interlocked.Exchange(ref _waiting, 1);
        if (Interlocked.Exchange(ref _signaled, 0) == 1 && Interlocked.Exchange(ref _waiting, 0) == 1)
        {
            return default; // set in between, before it saw the waiter: the waiter was taken back
        }

        // Either no set came, or one took the waiter and completes it.
        return new ValueTask(this, _core.Version);
    }

    /// <summary>Wakes the waiter, or the next wait (a wake may be spurious: the waiter checks its conditions).</summary>
    public void Set()
    {
        Interlocked.Exchange(ref _signaled, 1);
        if (Interlocked.Exchange(ref _waiting, 0) == 1)
        {
            _core.SetResult(true);
        }
    }

    void IValueTaskSource.GetResult(short token) => _core.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
