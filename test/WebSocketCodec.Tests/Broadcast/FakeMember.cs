namespace WebSocketCodec.Tests.Broadcast;

/// <summary>
/// A group member with a scripted output: it records the bytes appended to it, can be busy (the broadcasting thread
/// cannot write it now, so frames queue), unwritable, or unable to send, and runs its queue when the test says so (or
/// on the thread pool, for the concurrent tests).
/// </summary>
internal sealed class FakeMember(WebSocketRole role = WebSocketRole.Server, bool runOnThreadPool = false, long highWaterMark = 1024, long hardLimit = 0)
    : BroadcastInbox, IWebSocketGroupMember
{
    private readonly object _sync = new();
    private readonly List<byte[]> _frames = [];
    private readonly FrameCollector _output = new();

    public volatile bool Busy;
    public volatile bool Writable = true;
    public volatile bool Sending = true;
    public volatile bool InMessage;
    public volatile bool Rejects;

    /// <summary>Bytes the fake's transport has not taken (the output's level, which a hard limit counts and under
    /// which queued frames are appended).</summary>
    public long OutputPending;
    public int Schedules;

    /// <summary>Runs inside the fan-out, as a handler raised by a member's flush would.</summary>
    public Action? DuringAppend;
    public int SlowCloses;

    BroadcastInbox IWebSocketGroupMember.BroadcastInbox => this;

    public override WebSocketRole Role => role;

    public List<byte[]> Frames
    {
        get
        {
            lock (_sync)
            {
                return [.. _frames];
            }
        }
    }

    public bool HasQueued => !QueueIsEmpty;

    /// <summary>The closes asked of this member (status and reason), in order.</summary>
    public List<(CloseStatus Status, string? Reason)> Closes { get; } = [];

    public override void Close(CloseStatus status, string? reason)
    {
        lock (_sync)
        {
            Closes.Add((status, reason));
        }
    }

    protected override bool CanSend => Sending;

    protected override bool IsWritable => Writable;

    protected override long HighWaterMark => highWaterMark;

    protected override long HardLimit => hardLimit;

    protected override long OutputBytes => Volatile.Read(ref OutputPending);

    /// <summary>Runs the queue now, as the member's own thread would.</summary>
    public void Run()
    {
        lock (_sync)
        {
            RunQueued();
            // Re-encoded one by one (the same bytes: server frames are not masked).
            _frames.AddRange(WireFrames.Read(_output.Take(), WebSocketRole.Client, validateUtf8: false).Select(f => WireFrames.Server(f.Opcode, f.Payload, f.Fin)));
        }
    }

    protected override bool TryAppendNow(BroadcastFrame frame)
    {
        if (Busy || !Monitor.TryEnter(_sync))
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
            if (_output.Take() is { Length: > 0 } bytes)
            {
                _frames.Add(bytes);
            }
        }
        finally
        {
            Monitor.Exit(_sync);
        }

        FlushAfterFanOut();
        Action? during = DuringAppend;
        DuringAppend = null;
        during?.Invoke();
        return true;
    }

    /// <summary>Flushes asked for after a fan-out.</summary>
    public int Flushes;

    protected override void FlushAppended() => Interlocked.Increment(ref Flushes);

    protected override bool Schedule()
    {
        Interlocked.Increment(ref Schedules);
        if (Rejects)
        {
            return false;
        }

        if (runOnThreadPool)
        {
            ThreadPool.UnsafeQueueUserWorkItem(static member => member.Run(), this, preferLocal: false);
        }

        return true;
    }

    protected override ChunkWriter? TargetLocked => InMessage ? null : _output;

    /// <summary>Runs (once) when a run has looked at a message of the member's own and not yet taken it: where another
    /// thread's discard (the websocket's end) can come in between.</summary>
    public Action? BetweenLookAndTake;

    protected override bool CanAppendOwnLocked
    {
        get
        {
            Action? between = BetweenLookAndTake;
            BetweenLookAndTake = null;
            between?.Invoke();
            return !InMessage;
        }
    }

    protected override void AppendOwnLocked(BroadcastFrame frame)
    {
        byte[] bytes = WireFrames.Server(frame.Opcode, frame.Payload);
        bytes.CopyTo(_output.GetSpan(bytes.Length));
        _output.Advance(bytes.Length);
    }

    protected override void CloseSlowLocked()
    {
        SlowCloses++;
        Sending = false;
    }
}

/// <summary>A chunk writer over growing arrays: what was written since the last <see cref="Take"/>.</summary>
internal sealed class FrameCollector : ChunkWriter
{
    private readonly System.Buffers.ArrayBufferWriter<byte> _taken = new();

    public byte[] Take()
    {
        _taken.Advance(Detach());
        byte[] bytes = _taken.WrittenSpan.ToArray();
        _taken.ResetWrittenCount();
        return bytes;
    }

    protected override Memory<byte> Refill(int sizeHint)
    {
        int written = Detach();
        _taken.Advance(written);
        return Attach(_taken.GetMemory(Math.Max(sizeHint, 256)));
    }
}
