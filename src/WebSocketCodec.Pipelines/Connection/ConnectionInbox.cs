namespace WebSocketCodec.Pipelines;

/// <summary>
/// A <see cref="WebSocketConnection"/>'s side of broadcasts. The fan-out appends straight into the output when its
/// lock is free at that moment (or the broadcasting thread is this websocket's own read loop, which holds it), and
/// otherwise queues the frame for a thread-pool run that takes the lock. The flush comes after the fan-out; a read
/// loop that broadcasts (holding its own lock) leaves the flush to the thread pool. So no thread ever waits for a
/// websocket's lock while holding another's or the group's, and no two read loops can wait on each other.
/// </summary>
internal sealed class ConnectionInbox(WebSocketConnection connection, WebSocketOutput output) : BroadcastInbox, IThreadPoolWorkItem
{
    private int _stopped; // an append crossed the high water mark: report it with the flush

    public override WebSocketRole Role => connection.Role;

    protected override bool CanSend => connection.CanSend;

    protected override bool IsWritable => output.IsWritable;

    protected override long HighWaterMark => connection.Options.OutboundHighWaterMark;

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
            if (output.AfterAppendLocked())
            {
                Volatile.Write(ref _stopped, 1);
            }
        }
        finally
        {
            Monitor.Exit(output.Sync);
        }

        FlushAfterFanOut();
        return true;
    }

    protected override void FlushAppended()
    {
        if (WebSocketConnection.InDispatch)
        {
            // This thread is a read loop holding its own websocket's lock: waiting for this one's could deadlock with
            // its loop doing the same, so the thread pool flushes.
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
            RunQueued();
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
