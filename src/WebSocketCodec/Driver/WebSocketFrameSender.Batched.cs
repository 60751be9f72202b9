namespace WebSocketCodec;

public sealed partial class WebSocketFrameSender
{
    private BatchedFlush? _batchedFlush; // made under the output's lock, on the first batched send

    /// <summary>
    /// From any thread, without waiting (for transports that write many messages in a row, as Akka's endpoint writer
    /// does): appends one whole frame unless the websocket is above its high water mark or can no longer send, and
    /// leaves the flush to one thread pool work item, queued by the append that found none queued. Appends that come
    /// before it runs go out with it: one flush per burst, no timer. On a read loop it is <see cref="TrySend"/>.
    /// </summary>
    /// <returns>Whether the frame was appended (false: not writable now, or closing; nothing was appended).</returns>
    /// <param name="opcode">Text or Binary.</param>
    /// <param name="payload">The message, copied before the call returns.</param>
    public bool TrySendBatched(WebSocketOpcode opcode, ReadOnlySpan<byte> payload)
    {
        if (ThreadLocks.Held || _connection.IsOnReadLoop)
        {
            return TrySend(opcode, payload);
        }

        if (!_output.TryEnter())
        {
            return TryQueue(opcode, payload, fin: true); // the loop dispatches a read: its flush after it takes the message
        }

        BatchedFlush flush;
        bool stopped;
        try
        {
            if (!_connection.CanSend || !_output.IsWritable || !_connection.DrainInboxLocked())
            {
                return false;
            }

            flush = _batchedFlush ??= new BatchedFlush(this);
            WriteData(opcode, payload, fin: true);
            stopped = AfterWriteLocked();
        }
        finally
        {
            Monitor.Exit(_output.Sync);
        }

        if (stopped)
        {
            _output.ReportWritability(false);
        }

        if (Interlocked.Exchange(ref flush.Queued, 1) == 0)
        {
            ThreadPool.UnsafeQueueUserWorkItem(flush, preferLocal: true);
        }

        return true;
    }

    /// <summary>The flush <see cref="TrySendBatched"/> queues: clears its mark (an append after that queues the next
    /// one), then flushes everything appended so far. No lock: it never waits behind the read loop.</summary>
    private sealed class BatchedFlush(WebSocketFrameSender sender) : IThreadPoolWorkItem
    {
        /// <summary>1 while a flush is queued and has not started.</summary>
        public int Queued;

        public void Execute()
        {
            Interlocked.Exchange(ref Queued, 0);
            sender._output.Flush();
        }
    }
}
