using System.Threading.Tasks.Sources;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

// The output: the driver writes into pooled buffers from any thread (one caller at a time), committed buffers wait in
// order, and a flush hands them all to the channel in one event-loop task (each written, then one flush). The flush
// completes once written while the channel holds little unsent, else when the last write did: that is when the
// transport took the bytes, the backpressure the driver measures (see MustTrack).
internal sealed partial class ChannelPort : IValueTaskSource<bool>
{
    private readonly int _chunkSize;
    private readonly FlushItem _flushItem;
    private readonly Action<FlushPromise, bool> _onLastWrite;
    private FlushPromise? _promise; // the last write's promise, reused once completed
    private FlushPromise? _awaited; // the promise the pending flush waits for
    private int _writing; // 1 while the batch is written (on the event loop): a write that ends then is seen after it
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

    public void CancelPendingFlush()
    {
        Volatile.Write(ref _awaited, null); // a write still pending completes no later flush
        CompleteFlush(false);
    }

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

        int last = batch.Count - 1;
        FlushPromise? promise = MustTrack(context.Channel, batch) ? TakePromise() : null;
        Volatile.Write(ref _writing, 1);
        for (int i = 0; i < last; i++)
        {
            // No promise object per write: the void promise routes a failure to ExceptionCaught.
            _ = context.WriteAsync(batch[i], context.VoidPromise());
        }

        _ = context.WriteAsync(batch[last], promise ?? context.VoidPromise());
        batch.Clear();
        Volatile.Write(ref _spare, batch);
        context.Flush();
        Interlocked.Exchange(ref _writing, 0); // a fence: a write that ended meanwhile on another thread is seen below
        if (promise is null)
        {
            CompleteFlush(context.Channel.IsActive); // the channel holds little enough: taken, as a pipe would say
        }
        else if (promise.IsCompleted)
        {
            EndTracked(promise, promise.IsSuccess); // ended inside its own write: the driver's next flush follows this one
        }
    }

    /// <summary>Whether the flush must wait for its last write (a promise, and its task, per flush): while the channel
    /// would hold more than the driver's high water mark unsent, or the flush may carry our Close (closing the channel
    /// drops what it did not send). Otherwise the flush completes once written, like a pipe below its pause threshold,
    /// and allocates nothing.</summary>
    private bool MustTrack(IChannel channel, List<IByteBuffer> batch)
    {
        if (Driver.State != WebSocketSessionState.Open)
        {
            return true;
        }

        // The channel's high water mark is out of reach (see Attach): what is left below it is what it holds unsent.
        // An HTTP/2 stream out of flow-control window has no room at all. The bound is the driver's high water mark,
        // not its low one: an HTTP/2 stream holds its bytes until the connection writes them, and each tracked flush
        // sends the frames made meanwhile through the driver's side buffer, one more copy each (measured: 8 % more
        // CPU per message at 1000 B with the low mark, none with the high one).
        long held = channel.Configuration.WriteBufferHighWaterMark - channel.BytesBeforeUnwritable;
        foreach (IByteBuffer buffer in batch)
        {
            held += buffer.ReadableBytes;
        }

        return held > Driver.Options.OutboundHighWaterMark;
    }

    private FlushPromise TakePromise()
    {
        // Reused once the channel completed it; a write still held (its flush was cancelled) keeps its own.
        FlushPromise promise = _promise is { IsCompleted: true } used ? used : new FlushPromise(_onLastWrite);
        promise.Reset();
        _promise = promise;
        Volatile.Write(ref _awaited, promise);
        return promise;
    }

    private void OnLastWrite(FlushPromise promise, bool taken)
    {
        if (Volatile.Read(ref _writing) == 0)
        {
            EndTracked(promise, taken);
        }
    }

    private void EndTracked(FlushPromise promise, bool taken)
    {
        if (Interlocked.CompareExchange(ref _awaited, null, promise) == promise)
        {
            CompleteFlush(taken); // else a write of a flush that was cancelled: the flush it belonged to has ended
        }
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
