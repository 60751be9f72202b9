using DotNetty.Common.Concurrency;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The promise of a tracked flush's last write (see <c>ChannelPort.MustTrack</c>), reused flush after flush: SpanNetty's
/// own promise is three objects, this one only its task, made when asked for (a write through the pipeline asks). It
/// tells the port once, when the channel completes or fails it, so a write of a flush that was cancelled never ends a
/// later flush. Reused only once completed: a write the channel still holds keeps its promise, the next flush takes a
/// new one.
/// </summary>
internal sealed class FlushPromise(Action<FlushPromise, bool> completed) : IPromise
{
    private const int Pending = 0, Succeeded = 1, Failed = 2, Canceled = 3;
    private int _state;
    private int _uncancellable;
    private TaskCompletionSource? _task; // made on demand, for this use of the promise only
    private Exception? _error;

    public Task Task
    {
        get
        {
            if (Volatile.Read(ref _task) is { } made)
            {
                return made.Task;
            }

            var task = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            made = Interlocked.CompareExchange(ref _task, task, null) ?? task;
            Settle(made, Volatile.Read(ref _state)); // completed before anybody asked: the task reflects it
            return made.Task;
        }
    }

    public bool IsVoid => false;

    public bool IsCompleted => Volatile.Read(ref _state) != Pending;

    public bool IsSuccess => Volatile.Read(ref _state) == Succeeded;

    public bool IsFaulted => Volatile.Read(ref _state) == Failed;

    public bool IsCanceled => Volatile.Read(ref _state) == Canceled;

    /// <summary>Makes a completed promise new again for the next flush (only the port calls it, on the event loop).</summary>
    public void Reset()
    {
        _task = null;
        _error = null;
        _uncancellable = 0;
        Volatile.Write(ref _state, Pending);
    }

    public bool TryComplete() => TryEnd(Succeeded, null);

    public void Complete()
    {
        if (!TryComplete())
        {
            throw new InvalidOperationException("The write's promise was completed already.");
        }
    }

    public bool TrySetException(Exception exception) => TryEnd(Failed, exception);

    public bool TrySetException(IEnumerable<Exception> exceptions) => TryEnd(Failed, new AggregateException(exceptions));

    public void SetException(Exception exception)
    {
        if (!TrySetException(exception))
        {
            throw new InvalidOperationException("The write's promise was completed already.", exception);
        }
    }

    public void SetException(IEnumerable<Exception> exceptions) => SetException(new AggregateException(exceptions));

    public bool TrySetCanceled() => Volatile.Read(ref _uncancellable) == 0 && TryEnd(Canceled, null);

    public void SetCanceled()
    {
        if (Volatile.Read(ref _uncancellable) == 0 && !TrySetCanceled())
        {
            throw new InvalidOperationException("The write's promise was completed already.");
        }
    }

    public bool SetUncancellable()
    {
        Volatile.Write(ref _uncancellable, 1);
        return !IsCanceled;
    }

    public IPromise Unvoid() => this;

    public override string ToString() => $"FlushPromise[{(IsCompleted ? IsSuccess ? "succeeded" : "failed" : "pending")}]";

    private bool TryEnd(int state, Exception? error)
    {
        _error = error;
        if (Interlocked.CompareExchange(ref _state, state, Pending) != Pending)
        {
            return false;
        }

        if (Volatile.Read(ref _task) is { } task)
        {
            Settle(task, state);
        }

        completed(this, state == Succeeded);
        return true;
    }

    private void Settle(TaskCompletionSource task, int state)
    {
        _ = state switch
        {
            Succeeded => task.TrySetResult(),
            Failed => task.TrySetException(_error!),
            Canceled => task.TrySetCanceled(),
            _ => false,
        };
    }
}
