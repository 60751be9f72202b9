using System.Collections.Concurrent;

namespace WebSocketCodec;

/// <summary>
/// One websocket's side of broadcasts. A group's fan-out never waits on a member: when the member's output can be
/// written from the broadcasting thread at once (its lock is free, or this is its own thread), the frame's bytes are
/// appended there; otherwise the frame is retained and queued, and the host runs <see cref="RunQueued"/> on the
/// member's own thread (the thread pool, an event loop), which appends every queued frame in order and releases it.
/// Once a frame is queued, later ones queue behind it, so a member gets a group's messages in the group's order. The
/// hosts derive from it, sealed.
/// </summary>
internal abstract class BroadcastInbox
{
    [ThreadStatic]
    private static List<BroadcastInbox>? t_appended;

    private ConcurrentQueue<BroadcastFrame>? _queue; // made when a frame first has to wait: most never do
    private long _queuedBytes; // counted before a frame is queued and after it is taken: 0 means none waits
    private int _scheduled;
    private int _closeRequested;

    /// <summary>Which end the websocket is (broadcast frames are server frames).</summary>
    public abstract WebSocketRole Role { get; }

    /// <summary>Whether data frames may still be sent.</summary>
    protected abstract bool CanSend { get; }

    /// <summary>Whether the output is under its high water mark.</summary>
    protected abstract bool IsWritable { get; }

    /// <summary>The output's high water mark, which queued frames count against too.</summary>
    protected abstract long HighWaterMark { get; }

    /// <summary>Whether no frame waits in the queue (every frame's length counts, header included, so never 0).</summary>
    protected bool QueueIsEmpty => Volatile.Read(ref _queuedBytes) == 0;

    /// <summary>Offers a frame (the caller holds a reference for the duration of the call). Never waits.</summary>
    public BroadcastOutcome Offer(BroadcastFrame frame, SlowMemberPolicy policy)
    {
        if (!CanSend || Volatile.Read(ref _closeRequested) != 0)
        {
            return BroadcastOutcome.Gone;
        }

        long queued = Volatile.Read(ref _queuedBytes);
        if (!IsWritable || (queued > 0 && queued + frame.Length > HighWaterMark))
        {
            if (policy == SlowMemberPolicy.Skip)
            {
                return BroadcastOutcome.Skipped;
            }

            Volatile.Write(ref _closeRequested, 1);
            ScheduleRun();
            return BroadcastOutcome.Closed;
        }

        if (queued == 0 && TryAppendNow(frame))
        {
            return BroadcastOutcome.Sent;
        }

        ObjectDisposedException.ThrowIf(!frame.TryRetain(), frame);

        Interlocked.Add(ref _queuedBytes, frame.Length);
        ConcurrentQueue<BroadcastFrame> queue = Volatile.Read(ref _queue)
            ?? Interlocked.CompareExchange(ref _queue, new ConcurrentQueue<BroadcastFrame>(), null) ?? _queue!;
        queue.Enqueue(frame);
        ScheduleRun();
        return BroadcastOutcome.Sent;
    }

    /// <summary>Appends the frame now if this thread can write the output without waiting and nothing is queued
    /// (check <see cref="QueueIsEmpty"/> under the output's lock). The group's fan-out lock is held: whatever may wait
    /// or run code of others (a lock taken anew, a writability report, a channel flush's handlers) is left to
    /// <see cref="FlushAppended"/>, asked for with <see cref="FlushAfterFanOut"/>; a flush that only re-enters the lock
    /// this thread holds may run here.</summary>
    /// <returns>False: queue it.</returns>
    protected abstract bool TryAppendNow(BroadcastFrame frame);

    /// <summary>Finishes what <see cref="TryAppendNow"/> left (after the fan-out, no group lock held): the flush or the
    /// writability report, or has the member's own thread do it when this thread may not wait for the member's lock
    /// (<see cref="ThreadLocks.Held"/>).</summary>
    protected abstract void FlushAppended();

    /// <summary>Asks for <see cref="FlushAppended"/> once the current fan-out is over.</summary>
    protected void FlushAfterFanOut() => (t_appended ??= []).Add(this);

    /// <summary>Runs <see cref="FlushAppended"/> for the members appended to by this thread's fan-out (called by the
    /// group after its fan-out lock was released).</summary>
    public static void FlushFannedOut()
    {
        List<BroadcastInbox>? appended = t_appended;
        if (appended is null || appended.Count == 0)
        {
            return;
        }

        t_appended = null; // a flush may run code that broadcasts again: that fan-out gets a list of its own
        try
        {
            foreach (BroadcastInbox member in appended)
            {
                member.FlushAppended();
            }
        }
        finally
        {
            appended.Clear();
            t_appended ??= appended;
        }
    }

    /// <summary>Arranges for <see cref="RunQueued"/> to run on the member's own thread, soon.</summary>
    /// <returns>False when the host cannot run it any more (its thread is gone): the queue is released here.</returns>
    protected abstract bool Schedule();

    /// <summary>Where a frame goes now (the host's lock held, or on its thread): the output's writer, or null when the
    /// websocket can no longer send or is between fragments of a message of its own (a frame cannot go in between).</summary>
    protected abstract ChunkWriter? TargetLocked { get; }

    /// <summary>Appends one frame's bytes to <see cref="TargetLocked"/>, or counts it skipped when there is none.</summary>
    protected void AppendLocked(BroadcastFrame frame)
    {
        ChunkWriter? target = TargetLocked;
        if (target is null)
        {
            WebSocketTelemetry.BroadcastSkipped.Add(1);
            return;
        }

        ReadOnlySpan<byte> bytes = frame.Span;
        bytes.CopyTo(target.GetSpan(bytes.Length));
        target.Advance(bytes.Length);
    }

    /// <summary>Starts the close for a slow member (1008, "slow consumer"), with the host's lock held.</summary>
    protected abstract void CloseSlowLocked();

    /// <summary>Called by the host on its own thread, with its output lock held: appends every queued frame in order
    /// (or drops it once the websocket cannot send), releases each, and closes a slow member when asked. Flush after.</summary>
    protected void RunQueued()
    {
        // Frames queued from now on schedule another run. A full fence: the queue must not be read before this is
        // written, or a frame queued in between (seeing a run still scheduled) would wait for the next broadcast.
        Interlocked.Exchange(ref _scheduled, 0);
        ConcurrentQueue<BroadcastFrame>? queue = Volatile.Read(ref _queue);
        while (queue is not null && queue.TryDequeue(out BroadcastFrame? frame))
        {
            Interlocked.Add(ref _queuedBytes, -frame.Length);
            try
            {
                if (CanSend)
                {
                    AppendLocked(frame);
                }
            }
            finally
            {
                frame.Release();
            }
        }

        if (Volatile.Read(ref _closeRequested) == 1 && CanSend)
        {
            Volatile.Write(ref _closeRequested, 2);
            CloseSlowLocked();
        }
    }

    /// <summary>Releases every queued frame without appending (the host can no longer run).</summary>
    protected void DiscardQueued()
    {
        Interlocked.Exchange(ref _scheduled, 0);
        ConcurrentQueue<BroadcastFrame>? queue = Volatile.Read(ref _queue);
        while (queue is not null && queue.TryDequeue(out BroadcastFrame? frame))
        {
            Interlocked.Add(ref _queuedBytes, -frame.Length);
            frame.Release();
        }
    }

    /// <summary>Has <see cref="RunQueued"/> run on the member's own thread (once for any number of requests made before
    /// it starts).</summary>
    protected void ScheduleRun()
    {
        if (Interlocked.Exchange(ref _scheduled, 1) == 0 && !Schedule())
        {
            DiscardQueued();
        }
    }
}
