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

        BatchedFlush flush;
        bool stopped;
        bool queue;
        lock (_output.Sync)
        {
            if (!_connection.CanSend || !_output.IsWritable || !_connection.DrainInboxLocked())
            {
                return false;
            }

            flush = _batchedFlush ??= new BatchedFlush(this);
            WriteData(opcode, payload, fin: true);
            stopped = _output.AfterAppendLocked();
            queue = !flush.Queued;
            flush.Queued = true;
        }

        if (stopped)
        {
            _output.ReportWritability(false);
        }

        if (queue)
        {
            ThreadPool.UnsafeQueueUserWorkItem(flush, preferLocal: true);
        }

        return true;
    }

    /// <summary>The flush <see cref="TrySendBatched"/> queues: clears its mark under the output's lock (an append after
    /// that queues the next one), then flushes everything appended so far.</summary>
    private sealed class BatchedFlush(WebSocketFrameSender sender) : IThreadPoolWorkItem
    {
        /// <summary>Read and written under the output's lock.</summary>
        public bool Queued;

        public void Execute()
        {
            lock (sender._output.Sync)
            {
                Queued = false;
            }

            sender._output.Flush();
        }
    }
}
