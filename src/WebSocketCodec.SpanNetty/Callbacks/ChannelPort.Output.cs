using System.Threading.Tasks.Sources;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

// The output: the driver writes into pooled buffers from any thread (one caller at a time), committed buffers wait in
// order, and a flush hands them all to the channel in one event-loop task (each written, then one flush). The flush
// completes when the last write did: that is when the transport took the bytes, the backpressure the driver measures.
internal sealed partial class ChannelPort : IValueTaskSource<bool>
{
    private readonly int _chunkSize;
    private readonly FlushItem _flushItem;
    private readonly Action _onLastWrite;
    private Task? _lastWrite; // the flush's last write, while it is pending
    private IByteBuffer? _current; // the buffer being written into
    private List<IByteBuffer> _committed = []; // full buffers waiting for the next flush, in order
    private List<IByteBuffer>? _spare; // the list the last batch was written from, for the next
    private List<IByteBuffer>? _batch; // handed to the event loop by the flush in progress
    private ManualResetValueTaskSourceCore<bool> _flush = new() { RunContinuationsAsynchronously = false };
    private int _flushPending;

    public Memory<byte> GetOutputMemory(int sizeHint)
    {
        int need = Math.Max(sizeHint, 1);
        IByteBuffer? buffer = _current;
        if (buffer is null || buffer.Capacity - buffer.WriterIndex < need)
        {
            if (buffer is not null)
            {
                Commit(buffer);
            }

            // Off SpanNetty's event loops a pooled allocator is not safe: see ThreadSafeAllocation.
            buffer = ThreadSafeAllocation.For(Context.Allocator).Buffer(Math.Max(need, _chunkSize));
            _current = buffer;
        }

        return buffer.GetMemory(buffer.WriterIndex, buffer.Capacity - buffer.WriterIndex);
    }

    public void AdvanceOutput(int count)
    {
        IByteBuffer buffer = _current ?? throw new InvalidOperationException("No output memory was taken.");
        buffer.SetWriterIndex(buffer.WriterIndex + count);
    }

    public ValueTask<bool> FlushAsync()
    {
        if (_current is { } current && current.IsReadable())
        {
            _current = null;
            Commit(current);
        }

        if (_committed.Count == 0)
        {
            return new ValueTask<bool>(_context?.Channel.IsActive == true);
        }

        List<IByteBuffer> batch = _committed;
        _committed = Interlocked.Exchange(ref _spare, null) ?? [];
        if (Interlocked.Exchange(ref _batch, null) is { } unwritten)
        {
            unwritten.AddRange(batch); // a cancelled flush's batch the event loop has not taken yet goes first
            batch.Clear();
            _committed = batch;
            batch = unwritten;
        }

        _flush.Reset();
        Volatile.Write(ref _batch, batch);
        Volatile.Write(ref _flushPending, 1);
        IEventExecutor executor = Context.Executor;
        if (executor.InEventLoop)
        {
            WriteBatch(); // nothing of ours waits in the executor's queue: the driver flushes one batch at a time
        }
        else
        {
            try
            {
                // Never written from this thread: SpanNetty would queue such writes, and a later write made on the
                // event loop would overtake them.
                executor.Execute(_flushItem);
            }
            catch (RejectedExecutionException)
            {
                WriteBatch(); // the event loop is gone: the batch is released, the flush fails
            }
        }

        return new ValueTask<bool>(this, _flush.Version);
    }

    public void CancelPendingFlush() => CompleteFlush(false);

    bool IValueTaskSource<bool>.GetResult(short token) => _flush.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _flush.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(
        Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _flush.OnCompleted(continuation, state, token, flags);

    /// <summary>Returns every buffer not handed to the channel (the websocket ended; on the event loop).</summary>
    private void ReleaseOutput()
    {
        Interlocked.Exchange(ref _current, null)?.Release();
        ReleaseAll(Interlocked.Exchange(ref _batch, null));
        List<IByteBuffer> committed = _committed;
        ReleaseAll(committed);
    }

    private static void ReleaseAll(List<IByteBuffer>? buffers)
    {
        if (buffers is null)
        {
            return;
        }

        foreach (IByteBuffer buffer in buffers)
        {
            buffer.Release();
        }

        buffers.Clear();
    }

    private void Commit(IByteBuffer buffer)
    {
        if (buffer.IsReadable())
        {
            _committed.Add(buffer);
        }
        else
        {
            buffer.Release(); // never an empty write: SpanNetty's libuv transport aborts the process on one
        }
    }

    /// <summary>Writes the flush's batch to the channel and flushes it, on the event loop.</summary>
    private void WriteBatch()
    {
        List<IByteBuffer>? batch = Interlocked.Exchange(ref _batch, null);
        if (batch is null)
        {
            return;
        }

        IChannelHandlerContext context = Context;
        if (!context.Channel.IsActive || !context.Executor.InEventLoop)
        {
            ReleaseAll(batch);
            Volatile.Write(ref _spare, batch);
            CompleteFlush(false);
            return;
        }

        Task last = Task.CompletedTask;
        int count = batch.Count;
        for (int i = 0; i < count; i++)
        {
            if (i < count - 1)
            {
                // No promise object per write: the void promise routes a failure to ExceptionCaught.
                _ = context.WriteAsync(batch[i], context.VoidPromise());
            }
            else
            {
                last = context.WriteAsync(batch[i]);
            }
        }

        batch.Clear();
        Volatile.Write(ref _spare, batch);
        context.Flush();
        if (last.IsCompleted)
        {
            CompleteFlush(last.IsCompletedSuccessfully);
        }
        else
        {
            // The cached delegate is the task's continuation itself: no continuation task per flush.
            _lastWrite = last;
            last.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(_onLastWrite);
        }
    }

    private void OnLastWrite()
    {
        Task? write = _lastWrite;
        _lastWrite = null;
        CompleteFlush(write?.IsCompletedSuccessfully == true);
    }

    private void CompleteFlush(bool taken)
    {
        if (Interlocked.Exchange(ref _flushPending, 0) == 1)
        {
            _flush.SetResult(taken);
        }
    }

    /// <summary>A flush as the executor's task item: one per flush, never two queued (no allocation).</summary>
    private sealed class FlushItem(ChannelPort port) : IRunnable
    {
        public void Run() => port.WriteBatch();
    }
}
