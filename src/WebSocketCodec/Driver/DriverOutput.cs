using System.Buffers;

namespace WebSocketCodec;

/// <summary>
/// The outbound side of one websocket: frames are appended under a short lock (<see cref="Sync"/>) and never wait for
/// the network; flushing runs outside it. While no flush is under way, frames go straight into the transport's output
/// memory (through a <see cref="PortWriter"/>); while one is, they go into a <see cref="SideBuffer"/> (made on first
/// use) that the flusher copies behind them when the transport has taken the earlier bytes, so appending goes on
/// during a flush. Bytes not yet flushed count against the high and low water marks: at the high mark the websocket
/// stops being writable until they drop to the low mark.
/// <para>While the read loop dispatches a read (<see cref="BeginDispatch"/> to <see cref="EndDispatch"/>) it owns the
/// output: it holds <see cref="Sync"/> and its frames (the protocol's answers, the listener's sends) go in without a lock
/// per frame. No other thread ever waits for that: they enter with <see cref="TryEnter"/>, which gives up when the
/// loop dispatches, and then queue what they send (the driver's inbox) for the end of the read, or wait for it
/// asynchronously (<see cref="ReadEndedAsync"/>).</para>
/// </summary>
internal sealed class DriverOutput : IBufferWriter<byte>
{
    private readonly IWebSocketTransport _transport;
    private readonly PortWriter _direct;
    private readonly ArrayPool<byte> _pool;
    private readonly long _high;
    private readonly long _low;
    private readonly WebSocketDriver? _driver; // told of writability changes and of each flush's end

    private SideBuffer? _sideWriter;
    private ArrayBufferWriter<byte>? _discard;
    private bool _flushing;
    private bool _heldBack;
    private bool _ended;
    private long _sideCopied;
    private long _flushed;
    private bool _writable = true;
    private long _target;
    private ValueTask<bool> _pending;
    private Action? _resume; // made on the first flush the transport holds back
    private TaskCompletionSource? _drained;       // completed when no flush is under way any more
    private Queue<(long Target, TaskCompletionSource<bool> Done)>? _flushWaiters; // in order of target
    private TaskCompletionSource? _writableAgain; // completed when writable again (or ended)
    private int _dispatching;
    private TaskCompletionSource? _readEnded;     // completed when the loop's dispatch in progress ends
    private int _handOver;                        // 1: a flusher left the end of a flush to the dispatching loop
    private ValueTask<bool> _handedOver;          // that flush (completed)

    public DriverOutput(IWebSocketTransport transport, long highWaterMark, long lowWaterMark, ArrayPool<byte> pool, WebSocketDriver? driver)
    {
        _driver = driver;
        _transport = transport;
        _pool = pool;
        _direct = new PortWriter(transport);
        _high = highWaterMark;
        _low = lowWaterMark;
    }

    /// <summary>The lock every append takes (the read loop holds it for one read's dispatch, never across a flush).</summary>
    public object Sync { get; } = new();

    /// <summary>Whether the read loop is dispatching a read (it holds <see cref="Sync"/> until the read's frames were
    /// given to the listener).</summary>
    public bool IsDispatching => Volatile.Read(ref _dispatching) != 0;

    /// <summary>Takes <see cref="Sync"/> unless the read loop holds it for a dispatch (never waits for a listener):
    /// a short holder (another sender, a flusher) is waited for by spinning.</summary>
    /// <returns>Whether the lock was taken (release it with <see cref="Monitor.Exit"/>).</returns>
    public bool TryEnter()
    {
        if (Monitor.TryEnter(Sync))
        {
            return true;
        }

        SpinWait spin = default;
        while (true)
        {
            if (IsDispatching)
            {
                return false;
            }

            spin.SpinOnce(sleep1Threshold: -1);
            if (Monitor.TryEnter(Sync))
            {
                return true;
            }
        }
    }

    /// <summary>The loop starts dispatching a read (it holds <see cref="Sync"/>).</summary>
    public void BeginDispatch() => Volatile.Write(ref _dispatching, 1);

    /// <summary>The loop's dispatch ended (it still holds <see cref="Sync"/>): wakes those that wait for it.</summary>
    public void EndDispatch()
    {
        Interlocked.Exchange(ref _dispatching, 0); // a full fence: the inbox is looked at again after it
        if (Volatile.Read(ref _readEnded) is not null)
        {
            Interlocked.Exchange(ref _readEnded, null)?.TrySetResult();
        }
    }

    /// <summary>Completes when the loop is not dispatching a read (at once when it is not now).</summary>
    public Task ReadEndedAsync()
    {
        if (!IsDispatching)
        {
            return Task.CompletedTask;
        }

        TaskCompletionSource created = new(TaskCreationOptions.RunContinuationsAsynchronously);
        TaskCompletionSource waiting = Interlocked.CompareExchange(ref _readEnded, created, null) ?? created;
        if (!IsDispatching)
        {
            // Ended in between (its end may not have seen the source): complete it here.
            Interlocked.Exchange(ref _readEnded, null)?.TrySetResult();
            return Task.CompletedTask;
        }

        return waiting.Task;
    }

    /// <summary>Where frames go now; use it under <see cref="Sync"/> only.</summary>
    public ChunkWriter Current => _flushing ? Side : _direct;

    /// <summary>Whether the output was ended (completed, failed or given up): appends are dropped.</summary>
    public bool IsEnded => Volatile.Read(ref _ended);

    /// <summary>Whether unflushed bytes are under the high water mark (once at it: until they drop to the low mark).</summary>
    public bool IsWritable => Volatile.Read(ref _writable);

    /// <summary>Whether a flush is under way (the transport has not taken every byte yet).</summary>
    public bool IsFlushing => Volatile.Read(ref _flushing);

    /// <summary>Whether the transport ever held a flush back (the peer, or a buffer below us, once stopped taking our
    /// bytes): what it took since may still wait below us for a peer that does not read.</summary>
    public bool WasHeldBack => Volatile.Read(ref _heldBack);

    /// <summary>The transport error that ended a flush, if any.</summary>
    public Exception? Error { get; private set; }

    /// <summary>Bytes appended and not yet flushed (for the loop, between reads: it waits only for a short holder).</summary>
    public long Unflushed
    {
        get
        {
            lock (Sync)
            {
                return UnflushedLocked;
            }
        }
    }

    /// <summary>Bytes appended and not yet flushed, read without the lock: exact for the thread that holds
    /// <see cref="Sync"/> (the loop), an estimate for others.</summary>
    public long UnflushedRelaxed => UnflushedLocked;

    /// <summary>Bytes the transport has taken so far (grows with every flush that completes): the peer's progress.</summary>
    public long Flushed => Volatile.Read(ref _flushed);

    private SideBuffer Side => _sideWriter ??= new SideBuffer(_pool);

    private long SideAppended => _sideWriter is null ? 0 : _sideWriter.Appended;

    private long UnflushedLocked => _direct.Committed + _direct.Pending + SideAppended - _flushed;

    // The session's control frames (Pongs, Close, keep-alive Pings) come through here, under Sync.
    public Span<byte> GetSpan(int sizeHint = 0) => _ended ? Discard.GetSpan(sizeHint) : Current.GetSpan(sizeHint);

    public Memory<byte> GetMemory(int sizeHint = 0) => _ended ? Discard.GetMemory(sizeHint) : Current.GetMemory(sizeHint);

    public void Advance(int count)
    {
        if (_ended)
        {
            Discard.ResetWrittenCount();
            return;
        }

        Current.Advance(count);
    }

    private ArrayBufferWriter<byte> Discard => _discard ??= new ArrayBufferWriter<byte>(256);

    /// <summary>Applies the water marks after appends; the caller holds <see cref="Sync"/>.</summary>
    /// <returns>Whether the websocket just stopped being writable.</returns>
    public bool AfterAppendLocked()
    {
        // Bytes wait on the network only while a flush is under way; otherwise the flush that follows takes them.
        if (!_flushing || !_writable || UnflushedLocked < _high)
        {
            return false;
        }

        _writable = false;
        return true;
    }

    /// <summary>Reports a change of writability (outside <see cref="Sync"/>).</summary>
    public void ReportWritability(bool writable) => _driver?.OnWritabilityChanged(writable);

    /// <summary>Starts flushing what was appended unless a flush is under way (that one takes these bytes when the
    /// transport has taken the earlier ones). Never waits and allocates nothing; call it outside <see cref="Sync"/>.
    /// <see cref="IdleAsync"/> tells when the bytes are out.</summary>
    public void Flush()
    {
        if (StartFlush())
        {
            ReportWritability(false);
        }
    }

    /// <summary><see cref="Flush"/> for a caller that holds <see cref="Sync"/> (every lock taken here is then taken
    /// again by the same thread: nothing waits), so the transport takes the bytes, and returns its buffer, before the
    /// caller moves on. A change of writability is not reported here.</summary>
    /// <returns>Whether the websocket just stopped being writable: report it outside the caller's locks.</returns>
    public bool FlushHeld() => StartFlush();

    private bool StartFlush()
    {
        if (!TryEnter())
        {
            return false; // the loop dispatches a read: its flush at the end of the read takes these bytes
        }

        try
        {
            if (_ended || _flushing)
            {
                return false;
            }

            _direct.Commit();
            if (_direct.Committed + _sideCopied == _flushed && SideAppended == _sideCopied)
            {
                return false; // nothing new
            }

            _flushing = true;
            _target = _direct.Committed + _sideCopied;
        }
        finally
        {
            Monitor.Exit(Sync);
        }

        ValueTask<bool> flush;
        try
        {
            flush = _transport.FlushAsync();
        }
        catch (Exception error)
        {
            flush = ValueTask.FromException<bool>(error); // ended like a failed flush
        }

        Drive(flush);
        if (!_flushing || !TryEnter())
        {
            return false; // done; or the loop dispatches a read, and applies the water marks at its end
        }

        try
        {
            return AfterAppendLocked(); // the transport holds back: the water marks apply
        }
        finally
        {
            Monitor.Exit(Sync);
        }
    }

    /// <summary>Completes when the websocket is writable again or the output ended. Takes no lock: the source is
    /// made here or found, and the end of a flush run (which makes the websocket writable first) completes it.</summary>
    public Task WaitWritableAsync()
    {
        if (IsWritable || IsEnded)
        {
            return Task.CompletedTask;
        }

        TaskCompletionSource created = new(TaskCreationOptions.RunContinuationsAsynchronously);
        TaskCompletionSource waiting = Interlocked.CompareExchange(ref _writableAgain, created, null) ?? created;
        if (IsWritable || IsEnded)
        {
            // Writable in between (that change may not have seen the source): complete it here.
            Interlocked.Exchange(ref _writableAgain, null)?.TrySetResult();
            return Task.CompletedTask;
        }

        return waiting.Task;
    }

    /// <summary>Completes when the transport has taken every byte appended so far (true), or when the output ended
    /// before it did (false: the bytes may have left with the transport's end, or not at all). The caller holds
    /// <see cref="Sync"/> and starts the flush that takes them after releasing it.</summary>
    public Task<bool> FlushedLocked()
    {
        long target = _direct.Committed + _direct.Pending + SideAppended;
        if (target <= Volatile.Read(ref _flushed))
        {
            return Task.FromResult(true);
        }

        if (_ended && !_flushing)
        {
            return Task.FromResult(false);
        }

        var done = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (this) // the flush waiters' queue, never waited for behind a dispatch
        {
            (_flushWaiters ??= new()).Enqueue((target, done));
        }

        return done.Task;
    }

    /// <summary>Completes the waiters whose bytes the transport has taken, or all of them once the output ended
    /// (outside <see cref="Sync"/>: a waiter's continuation runs asynchronously anyway).</summary>
    private void WakeFlushWaiters()
    {
        if (Volatile.Read(ref _flushWaiters) is null)
        {
            return; // nobody ever waited: no lock on the flush path (the queue is made, once, under the lock)
        }

        while (true)
        {
            TaskCompletionSource<bool> done;
            bool taken;
            lock (this) // the flush waiters' queue (an internal object: no one else locks it); not Sync: a flusher never waits behind the loop's dispatch
            {
                if (_flushWaiters is not { Count: > 0 } waiters)
                {
                    return;
                }

                (long target, done) = waiters.Peek();
                taken = target <= Volatile.Read(ref _flushed);
                if (!taken && !(IsEnded && !IsFlushing))
                {
                    return;
                }

                waiters.Dequeue();
            }

            done.TrySetResult(taken);
        }
    }

    /// <summary>Completes when no flush is under way.</summary>
    public Task IdleAsync()
    {
        lock (Sync)
        {
            if (!_flushing)
            {
                return Task.CompletedTask;
            }

            _drained ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            return _drained.Task;
        }
    }

    /// <summary>Makes a pending flush return at once (a timer gave the peer up).</summary>
    public void CancelPendingFlush()
    {
        try
        {
            _transport.CancelPendingFlush();
        }
        catch (Exception error) when (error is InvalidOperationException or ObjectDisposedException)
        {
            // Completed in between.
        }
    }

    /// <summary>Stops taking appends (later frames are dropped) and commits what was appended to the transport's
    /// writer, unless a flush is under way.</summary>
    /// <returns>Whether a flush is still under way (wait for <see cref="IdleAsync"/>, or cancel it, before completing
    /// the transport's writer).</returns>
    public bool End()
    {
        TaskCompletionSource? writable;
        bool flushing;
        lock (Sync)
        {
            _ended = true;
            flushing = _flushing;
            if (!flushing)
            {
                _direct.Commit();
            }

            writable = Interlocked.Exchange(ref _writableAgain, null);
        }

        writable?.TrySetResult();
        return flushing;
    }

    /// <summary>Returns the side buffer's memory (after the transport's output ended).</summary>
    public void Release()
    {
        lock (Sync)
        {
            _ended = true;
            _sideWriter?.Release();
            _sideWriter = null;
        }

        WakeFlushWaiters(); // the transport's output ended: what was not taken by a flush is reported as not taken
    }

    /// <summary>Runs flushes until nothing appended is left, copying what was appended meanwhile behind the earlier
    /// bytes; a flush the transport holds back resumes here through a cached continuation (no allocation). Until
    /// <see cref="_flushing"/> is cleared, only this touches the transport's writer. The end of each flush is taken
    /// under <see cref="Sync"/>; when the read loop holds it for a dispatch, that end is handed to the loop (it runs it
    /// right after the dispatch, <see cref="RunHandedOver"/>), so a flusher never waits for a listener.</summary>
#pragma warning disable CA2012 // each completed flush is consumed once: here, or by the loop it was handed to
    private void Drive(ValueTask<bool> flush)
    {
        while (true)
        {
            if (!flush.IsCompleted)
            {
                Volatile.Write(ref _heldBack, true);
                _pending = flush;
                flush.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(_resume ??= Resume);
                return;
            }

            if (!EnterOrHandOver(flush))
            {
                return; // the loop dispatches a read: it ends this flush after the dispatch
            }

            if (!EndFlushEntered(flush, out Queue<SideBuffer.Chunk>? appended, out long appendedBytes))
            {
                return;
            }

            try
            {
                flush = CopyBehind(appended!, appendedBytes);
            }
            catch (Exception error)
            {
                flush = ValueTask.FromException<bool>(error); // ended like a failed flush, under the lock
            }
        }
    }
#pragma warning restore CA2012

    private void Resume()
    {
        ValueTask<bool> flush = _pending;
        _pending = default;
        Drive(flush);
    }

    /// <summary>Takes <see cref="Sync"/> to end a completed flush, unless the read loop dispatches: then the flush is
    /// left for the loop (the loop clears its dispatch flag, then looks for a flush left; this leaves it, then looks at
    /// the flag again: one of the two always sees the other, and the exchange gives the flush to one of them).</summary>
    /// <returns>Whether the lock was taken; false when the loop took the flush over.</returns>
    private bool EnterOrHandOver(ValueTask<bool> flush)
    {
        while (!TryEnter())
        {
            _handedOver = flush;
            Interlocked.Exchange(ref _handOver, 1);
            if (IsDispatching || Interlocked.Exchange(ref _handOver, 0) == 0)
            {
                return false; // the loop runs it after its dispatch (or took it already)
            }

            _handedOver = default; // the dispatch ended in between: this thread goes on
        }

        return true;
    }

    /// <summary>Runs the end of a flush a flusher left while this loop dispatched (call it on the loop, after the
    /// dispatch, outside <see cref="Sync"/>: it may report writability).</summary>
    public void RunHandedOver()
    {
        if (Volatile.Read(ref _handOver) == 0 || Interlocked.Exchange(ref _handOver, 0) == 0)
        {
            return;
        }

        ValueTask<bool> flush = _handedOver;
        _handedOver = default;
        Drive(flush);
    }

    /// <summary>Ends a completed flush; the caller took <see cref="Sync"/> (released here). Done (false) when nothing
    /// was appended meanwhile or the flush failed, else hands back the chunks appended during it.</summary>
    private bool EndFlushEntered(ValueTask<bool> flush, out Queue<SideBuffer.Chunk>? appended, out long appendedBytes)
    {
        appended = null;
        appendedBytes = 0;
        bool done, failed = false, changed = false;
        try
        {
            bool taken;
            Exception? error = null;
            try
            {
                taken = flush.GetAwaiter().GetResult();
            }
            catch (Exception thrown)
            {
                (taken, error) = (false, thrown);
            }

            if (!taken)
            {
                // Given up, the peer gone, or the transport failed: the output ends.
                Error ??= error;
                _ended = true;
                _flushing = false;
                FinishLocked();
                done = failed = true;
            }
            else
            {
                WebSocketTelemetry.BytesSent.Add(_target - _flushed);
                _flushed = _target;
                done = _ended || SideAppended == _sideCopied;
                if (done)
                {
                    _flushing = false;
                    changed = FinishLocked();
                }
                else
                {
                    // Frames were appended during the flush: take them (later appends go on into new chunks).
                    (appended, appendedBytes) = _sideWriter!.TakeSealed();
                }
            }
        }
        finally
        {
            Monitor.Exit(Sync);
        }

        if (failed)
        {
            ReportWritability(_writable); // wakes whoever waits: the output ended
        }

        WakeFlushWaiters();
        if (done)
        {
            if (changed)
            {
                ReportWritability(true);
            }

            _driver?.OnFlushEnded();
            return false;
        }

        return true;
    }

    /// <summary>Copies the chunks appended during the last flush behind its bytes and starts the next flush, outside
    /// <see cref="Sync"/> (appends go on into the side buffer meanwhile; until <see cref="_flushing"/> is cleared only
    /// this thread touches the transport's output, <see cref="_sideCopied"/> and <see cref="_target"/>; appends go to the
    /// side buffer, so <see cref="_direct"/> stays as it is).</summary>
    private ValueTask<bool> CopyBehind(Queue<SideBuffer.Chunk> appended, long appendedBytes)
    {
        foreach (SideBuffer.Chunk chunk in appended)
        {
            ReadOnlySpan<byte> bytes = chunk.Array.AsSpan(0, chunk.Length);
            while (!bytes.IsEmpty)
            {
                Span<byte> target = _transport.GetOutputMemory(0).Span;
                int length = Math.Min(target.Length, bytes.Length);
                bytes[..length].CopyTo(target);
                _transport.AdvanceOutput(length);
                bytes = bytes[length..];
            }
        }

        _sideWriter!.Recycle(appended); // safe outside the lock (the pool's arrays, and the spare queue by exchange)
        _sideCopied += appendedBytes;
        _target = _direct.Committed + _sideCopied;
        return _transport.FlushAsync();
    }

    /// <summary>A flush run ended: applies the water marks, wakes the waiters; returns whether the websocket became
    /// writable again (report it outside the lock).</summary>
    private bool FinishLocked()
    {
        bool wasWritable = _writable;
        long unflushed = UnflushedLocked;
        _writable = _writable ? unflushed < _high : unflushed <= _low;
        Interlocked.Exchange(ref _drained, null)?.TrySetResult();
        if (_writable || _ended)
        {
            Interlocked.Exchange(ref _writableAgain, null)?.TrySetResult();
        }

        return _writable && !wasWritable;
    }
}
