using System.Collections.Concurrent;

namespace WebSocketCodec;

/// <summary>
/// One websocket's side of broadcasts. A group's fan-out never waits on a member: when the member's output can be
/// written from the broadcasting thread at once (its lock is free, or this is its own thread), the frame's bytes are
/// appended there; otherwise the frame is retained and queued, and the host runs <see cref="RunQueued"/> on the
/// member's own thread (the thread pool, an event loop), which appends queued frames in order, while the output is
/// under its high water mark, and releases each. The rest stay queued (a reference each, not a copy) until the host
/// reports the output drained (<see cref="OutputDrained"/>). Once a frame is queued, later ones queue behind it, so a
/// member gets a group's messages in the group's order. A member is slow by progress, not by level: the host's
/// slow-consumer timer (<see cref="SlowConsumerWatch"/>) closes one whose peer took nothing for the timeout. What a
/// queued frame holds counts against a process-wide <see cref="BroadcastBudget"/> (once, however many members hold
/// it); when a frame would pass it, members are closed, the largest backlog first (under
/// <see cref="SlowMemberPolicy.Skip"/>, the frame is skipped for this member). An application may also cap one
/// member's backlog (<see cref="WebSocketSessionOptions.OutboundHardLimit"/>, off by default). The hosts derive from
/// it, sealed.
/// </summary>
internal abstract class BroadcastInbox
{
    [ThreadStatic]
    private static List<BroadcastInbox>? t_appended;

    private ConcurrentQueue<BroadcastFrame>? _queue; // made when a frame first has to wait: most never do
    private long _queuedBytes; // counted before a frame is queued and after it is taken: 0 means none waits
    private int _scheduled;
    private int _closeRequested; // 0: no; 1: a slow member's close asked for, its run still to come; 2: done or ended
    private volatile bool _closedAsSlow; // closed by a group's policy or budget: every group that still has it says so
    private BroadcastBudget? _registered; // the budget that can find this member to close it

    /// <summary>Which end the websocket is (broadcast frames are server frames).</summary>
    public abstract WebSocketRole Role { get; }

    /// <summary>Whether data frames may still be sent.</summary>
    protected abstract bool CanSend { get; }

    /// <summary>Whether the output is under its high water mark.</summary>
    protected abstract bool IsWritable { get; }

    /// <summary>The output's high water mark: queued frames are appended while the output is under it.</summary>
    protected abstract long HighWaterMark { get; }

    /// <summary>The most bytes the output and the queue may hold together before a member under
    /// <see cref="SlowMemberPolicy.Close"/> is closed (never under <see cref="HighWaterMark"/>); zero for no such limit
    /// (the budget alone bounds the queue).</summary>
    protected abstract long HardLimit { get; }

    /// <summary>Bytes in the output not yet taken by the transport; read from any thread, without the host's lock (an
    /// estimate is enough for the hard limit). Under the host's lock (in <see cref="RunQueued"/>) it must be exact.</summary>
    protected abstract long OutputBytes { get; }

    /// <summary>Closes the websocket with <paramref name="status"/> (its Close goes after the frames it has taken);
    /// never waits for it.</summary>
    public abstract void Close(CloseStatus status, string? reason);

    /// <summary>Bytes of frames waiting in the queue.</summary>
    public long QueuedBytes => Volatile.Read(ref _queuedBytes);

    /// <summary>Whether no frame waits in the queue (every frame's length counts, header included, so never 0).</summary>
    protected bool QueueIsEmpty => Volatile.Read(ref _queuedBytes) == 0;

    /// <summary>Offers a frame (the caller holds a reference for the duration of the call). Never waits.</summary>
    /// <param name="frame">The frame.</param>
    /// <param name="policy">What to do when the member cannot take it now and it cannot be queued.</param>
    /// <param name="budget">The queuing group's budget (a frame queued before counts against its own).</param>
    public BroadcastOutcome Offer(BroadcastFrame frame, SlowMemberPolicy policy, BroadcastBudget budget)
    {
        if (_closedAsSlow)
        {
            return BroadcastOutcome.Closed; // closed as slow elsewhere (a budget, another group): this group drops it too
        }

        if (Volatile.Read(ref _closeRequested) != 0 || !CanSend)
        {
            return BroadcastOutcome.Gone;
        }

        long queued = Volatile.Read(ref _queuedBytes);
        bool writable = IsWritable;
        if (policy == SlowMemberPolicy.Skip)
        {
            if (!writable || (queued > 0 && queued + frame.Length > HighWaterMark))
            {
                return BroadcastOutcome.Skipped; // a feed: the next message supersedes this one
            }
        }
        else if (HardLimit > 0 && (queued > 0 || !writable) && queued + OutputBytes + frame.Length > Math.Max(HardLimit, HighWaterMark))
        {
            // Behind by more than the application's limit for one member.
            return RequestSlowClose();
        }

        if (queued == 0 && writable && TryAppendNow(frame))
        {
            return BroadcastOutcome.Sent;
        }

        BroadcastBudget charged = frame.BudgetOr(budget);
        if (charged.WouldPass(frame.QueueCost))
        {
            if (policy == SlowMemberPolicy.Skip)
            {
                return BroadcastOutcome.Skipped;
            }

            if (!charged.MakeRoom(frame.QueueCost, this))
            {
                if (Volatile.Read(ref _closeRequested) != 0)
                {
                    return BroadcastOutcome.Closed; // closed by the budget, as the largest backlog
                }

                charged.CountClosed(); // no member left whose close would make room
                return RequestSlowClose();
            }
        }

        ObjectDisposedException.ThrowIf(!frame.TryRetain(), frame);
        Register(frame.Queued(charged));
        Interlocked.Add(ref _queuedBytes, frame.Length);
        ConcurrentQueue<BroadcastFrame> queue = Volatile.Read(ref _queue)
            ?? Interlocked.CompareExchange(ref _queue, new ConcurrentQueue<BroadcastFrame>(), null) ?? _queue!;
        queue.Enqueue(frame);
        ScheduleRun();
        return BroadcastOutcome.Sent;
    }

    /// <summary>Asks for this slow member's close on its own thread.</summary>
    private BroadcastOutcome RequestSlowClose()
    {
        _closedAsSlow = true;
        Volatile.Write(ref _closeRequested, 1);
        ScheduleRun();
        return BroadcastOutcome.Closed;
    }

    /// <summary>Whether the member can take no more frames (ended, or its close was asked for).</summary>
    internal bool IsGone => !CanSend || Volatile.Read(ref _closeRequested) != 0;

    /// <summary>How far behind the member is, for a budget choosing whom to close: its queued frames and unsent output
    /// (zero when nothing is queued: closing it would free nothing of the budget).</summary>
    internal long Backlog
    {
        get
        {
            long queued = Volatile.Read(ref _queuedBytes);
            return queued == 0 ? 0 : queued + OutputBytes;
        }
    }

    /// <summary>Closes this member for a budget (any thread): its queue is released now, and its close (1008) runs on
    /// its own thread.</summary>
    /// <returns>False when it was closing or gone already.</returns>
    internal bool TryEvict()
    {
        if (!CanSend || Interlocked.CompareExchange(ref _closeRequested, 1, 0) != 0)
        {
            return false;
        }

        _closedAsSlow = true;
        ReleaseQueue();
        ScheduleRun();
        return true;
    }

    /// <summary>Lets the budget find this member (once; the first budget that counts a frame of its queue).</summary>
    private void Register(BroadcastBudget budget)
    {
        if (Volatile.Read(ref _registered) is not null || Interlocked.CompareExchange(ref _registered, budget, null) is not null)
        {
            return;
        }

        budget.Register(this);
        if (Volatile.Read(ref _closeRequested) == 2)
        {
            budget.Unregister(this); // ended meanwhile, after its end looked for a budget to leave
        }
    }

    /// <summary>Queues one of the websocket's own messages (<see cref="BroadcastFrame.IsEncoded"/> false) for its own
    /// thread to append, in order behind what is queued (the caller holds a reference for the duration of the call).
    /// Never waits, never skips: the caller checked the room (<see cref="QueuedBytes"/>).</summary>
    /// <param name="frame">The message.</param>
    /// <returns>False when the websocket is gone (nothing was queued).</returns>
    public bool Enqueue(BroadcastFrame frame)
    {
        if (!CanSend || Volatile.Read(ref _closeRequested) != 0)
        {
            return false;
        }

        ObjectDisposedException.ThrowIf(!frame.TryRetain(), frame);
        ConcurrentQueue<BroadcastFrame> queue = Volatile.Read(ref _queue)
            ?? Interlocked.CompareExchange(ref _queue, new ConcurrentQueue<BroadcastFrame>(), null) ?? _queue!;
        queue.Enqueue(frame);
        // Counted once in the queue, with a full fence: an owner whose dispatch ends sees the count (and the frame in
        // the queue) when it looks again, or this sees that it no longer dispatches, and schedules a run.
        Interlocked.Add(ref _queuedBytes, frame.Length);
        if (!OwnerRunsSoon)
        {
            ScheduleRun();
        }

        return true;
    }

    /// <summary>Whether the websocket's own thread runs the queue soon anyway (it dispatches a read and runs the queue
    /// at its end; read after the frame was counted in, so a dispatch that ended in between is seen as ended).</summary>
    protected virtual bool OwnerRunsSoon => false;

    /// <summary>Whether a run has something to do: frames wait, or a slow member's close was asked for.</summary>
    public bool HasWork => Volatile.Read(ref _queuedBytes) != 0 || Volatile.Read(ref _closeRequested) == 1;

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

    /// <summary>Whether one of the websocket's own messages can be appended now (no fragmented message is in progress:
    /// it goes after that message's end).</summary>
    protected virtual bool CanAppendOwnLocked => true;

    /// <summary>Encodes and appends one of the websocket's own messages (<see cref="BroadcastFrame.IsEncoded"/> false).</summary>
    protected virtual void AppendOwnLocked(BroadcastFrame frame) =>
        throw new NotSupportedException("This inbox takes broadcasts only.");

    /// <summary>Appends one frame's bytes to <see cref="TargetLocked"/>, or counts it skipped when there is none.</summary>
    protected void AppendLocked(BroadcastFrame frame)
    {
        if (!frame.IsEncoded)
        {
            AppendOwnLocked(frame);
            return;
        }

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

    /// <summary>Called by the host on its own thread, with its output lock held: appends queued frames in order while
    /// the output is under its high water mark (all of them with <paramref name="all"/>: a frame of the member's own
    /// is about to be appended behind them), or drops them once the websocket cannot send, releases each, and closes a
    /// slow member when asked (its queue dropped: it leaves the group). Flush after; frames left wait for
    /// <see cref="OutputDrained"/>.</summary>
    protected void RunQueued(bool all = false)
    {
        // Frames queued from now on schedule another run. A full fence: the queue must not be read before this is
        // written, or a frame queued in between (seeing a run still scheduled) would wait for the next broadcast.
        Interlocked.Exchange(ref _scheduled, 0);
        if (Volatile.Read(ref _closeRequested) == 1)
        {
            Volatile.Write(ref _closeRequested, 2);
            DiscardQueued();
            if (CanSend)
            {
                CloseSlowLocked();
            }

            return;
        }

        ConcurrentQueue<BroadcastFrame>? queue = Volatile.Read(ref _queue);
        while (queue is not null && (all || !CanSend || OutputBytes < HighWaterMark) && queue.TryPeek(out BroadcastFrame? next))
        {
            if (!next.IsEncoded && CanSend && !CanAppendOwnLocked)
            {
                return; // a fragmented message is in progress: this message, and those behind it, go after its end
            }

            // The frame released is the one dequeued, not the one peeked: the websocket's end discards the queue from
            // any thread (Abandon), and may take the peeked frame in between (then the websocket cannot send: nothing
            // is appended, and each frame is released once, by whoever dequeued it).
            if (!queue.TryDequeue(out BroadcastFrame? frame))
            {
                return;
            }

            Unqueued(frame);
            try
            {
                if (CanSend && ReferenceEquals(frame, next))
                {
                    AppendLocked(frame);
                }
            }
            finally
            {
                frame.Release();
            }
        }
    }

    /// <summary>The host's output drained below its high water mark (a flush ended, the channel became writable):
    /// queued frames, if any, are appended by another run on the member's thread.</summary>
    public void OutputDrained()
    {
        if (Volatile.Read(ref _queuedBytes) != 0 || Volatile.Read(ref _closeRequested) == 1)
        {
            ScheduleRun();
        }
    }

    /// <summary>The websocket ended: every queued frame is released now, and later offers find it gone (the host may
    /// never report its output drained again). Any thread.</summary>
    public void Abandon()
    {
        Interlocked.Exchange(ref _closeRequested, 2); // a full fence: a registration in progress sees it, or is seen
        Volatile.Read(ref _registered)?.Unregister(this);
        DiscardQueued();
    }

    /// <summary>Releases every queued frame without appending (the host can no longer run).</summary>
    protected void DiscardQueued()
    {
        Interlocked.Exchange(ref _scheduled, 0);
        ReleaseQueue();
    }

    /// <summary>Releases every queued frame (any thread: each is released by whoever dequeued it).</summary>
    private void ReleaseQueue()
    {
        ConcurrentQueue<BroadcastFrame>? queue = Volatile.Read(ref _queue);
        while (queue is not null && queue.TryDequeue(out BroadcastFrame? frame))
        {
            Unqueued(frame);
            frame.Release();
        }
    }

    /// <summary>A frame left the queue (taken or dropped; released after): its bytes leave the queue's count, and a
    /// group frame's leave its budget.</summary>
    private void Unqueued(BroadcastFrame frame)
    {
        Interlocked.Add(ref _queuedBytes, -frame.Length);
        if (frame.IsEncoded)
        {
            frame.Dequeued();
        }
    }

    /// <summary>A scheduled run found the member's thread busy with a run of its own to come: later requests schedule
    /// again.</summary>
    protected void ClearScheduled() => Interlocked.Exchange(ref _scheduled, 0);

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
