namespace WebSocketCodec;

/// <summary>
/// A <see cref="WebSocketDriver"/>'s side of broadcasts. The fan-out appends straight into the output when its
/// lock is free at that moment (or the broadcasting thread is this websocket's own read loop, which holds it), and
/// otherwise queues the frame for a thread-pool run that takes the lock. A frame appended from the fan-out is flushed
/// there, under the lock it holds; a change of writability is reported after the fan-out (by the thread pool when the
/// broadcaster is a read loop). So no thread ever waits for a websocket's lock while holding another's or the group's,
/// and no two read loops can wait on each other.
/// </summary>
internal sealed class DriverInbox(WebSocketDriver connection, DriverOutput output) : BroadcastInbox, IThreadPoolWorkItem
{
    private int _stopped; // an append crossed the high water mark: report it with the flush

    public override WebSocketRole Role => connection.Role;

    protected override bool CanSend => connection.CanSend;

    protected override bool IsWritable => output.IsWritable;

    protected override long HighWaterMark => connection.Options.OutboundHighWaterMark;

    protected override long HardLimit => connection.Options.OutboundHardLimit;

    protected override long OutputBytes => output.UnflushedRelaxed;

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
        connection.CanSend && !connection.Sender.InMessage ? output.Current : null;

    protected override void CloseSlowLocked() => connection.StartSlowConsumerCloseLocked();

    public void Execute()
    {
        bool stopped;
        lock (output.Sync)
        {
            RunQueued();
            stopped = output.AfterAppendLocked();
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
