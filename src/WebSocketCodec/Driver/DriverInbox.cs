namespace WebSocketCodec;

/// <summary>
/// A <see cref="WebSocketDriver"/>'s side of broadcasts. The fan-out appends straight into the output when its
/// lock is free at that moment (or the broadcasting thread is this websocket's own read loop, which holds it), and
/// otherwise queues the frame for a thread-pool run that takes the lock. A frame appended from the fan-out is flushed
/// there, under the lock it holds; a change of writability is reported after the fan-out (by the thread pool when the
/// broadcaster is a read loop). So no thread ever waits for a websocket's lock while holding another's or the group's,
/// and no two read loops can wait on each other.
/// <para>It also holds the websocket's own messages that other threads send while the read loop dispatches a read
/// (the loop owns the output then): copied, unencoded, and encoded (compressed, when permessage-deflate is on) when
/// appended, in the order frames leave, at the end of the read.</para>
/// </summary>
internal sealed class DriverInbox(WebSocketDriver connection, DriverOutput output) : BroadcastInbox, IThreadPoolWorkItem
{
    private int _stopped; // an append crossed the high water mark: report it with the flush

    public override WebSocketRole Role => connection.Role;

    protected override bool CanSend => connection.CanAppend;

    protected override bool IsWritable => output.IsWritable;

    protected override long HighWaterMark => connection.Options.OutboundHighWaterMark;

    protected override long HardLimit => connection.Options.OutboundHardLimit;

    protected override long OutputBytes => output.UnflushedRelaxed;

    public override void Close(CloseStatus status, string? reason) => _ = connection.CloseAsync(status, reason);

    protected override bool TryAppendNow(BroadcastFrame frame)
    {
        if (connection.IsOnReadLoop)
        {
            // The loop holds the lock for its dispatch, and flushes when the dispatch ends.
            if (!QueueIsEmpty)
            {
                return false;
            }

            AppendLocked(frame);
            return true;
        }

        if (!Monitor.TryEnter(output.Sync))
        {
            return false;
        }

        try
        {
            if (!QueueIsEmpty)
            {
                return false;
            }

            AppendLocked(frame);
            // Flushed now, with the lock held (the flush takes it again, without waiting), so the transport's buffer is
            // returned before the next member rents one: a thousand members do not hold a thousand buffers at once.
            if (output.AfterAppendLocked() | output.FlushHeld())
            {
                Volatile.Write(ref _stopped, 1);
                FlushAfterFanOut(); // the change of writability is reported once no group lock is held
            }
        }
        finally
        {
            Monitor.Exit(output.Sync);
        }

        return true;
    }

    protected override void FlushAppended()
    {
        if (ThreadLocks.Held)
        {
            // A read loop that broadcast holds its own websocket's lock: the thread pool reports it.
            ScheduleRun();
            return;
        }

        FlushOut(Interlocked.Exchange(ref _stopped, 0) != 0);
    }

    /// <summary>Appends what is queued, ahead of a frame about to be appended directly (under the output's lock), so
    /// a frame a listener queued for this websocket is not overtaken by a later one sent from elsewhere.</summary>
    public void DrainLocked()
    {
        if (!QueueIsEmpty)
        {
            RunQueued(all: true);
        }
    }

    protected override bool Schedule()
    {
        ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
        return true;
    }

    protected override ChunkWriter? TargetLocked =>
        connection.CanAppend && !connection.Sender.InMessage ? output.Current : null;

    protected override bool OwnerRunsSoon => output.IsDispatching;

    protected override bool CanAppendOwnLocked => !connection.Sender.InMessage;

    protected override void AppendOwnLocked(BroadcastFrame frame) => connection.Sender.AppendQueuedLocked(frame.Opcode, frame.Payload);

    /// <summary>Runs the queue at the end of the loop's dispatch (it holds the lock) when something waits.</summary>
    public void RunAfterDispatchLocked()
    {
        if (HasWork)
        {
            RunQueued();
        }
    }

    protected override void CloseSlowLocked() => connection.StartSlowConsumerCloseLocked();

    public void Execute()
    {
        if (!output.TryEnter())
        {
            // The loop dispatches a read: it runs the queue at the read's end (it looks after this saw it dispatching).
            // Later frames schedule runs of their own.
            ClearScheduled();
            return;
        }

        bool stopped;
        try
        {
            RunQueued();
            stopped = output.AfterAppendLocked();
        }
        finally
        {
            Monitor.Exit(output.Sync);
        }

        FlushOut(stopped | Interlocked.Exchange(ref _stopped, 0) != 0);
    }

    private void FlushOut(bool stopped)
    {
        if (stopped)
        {
            output.ReportWritability(false);
        }

        output.Flush();
    }
}
