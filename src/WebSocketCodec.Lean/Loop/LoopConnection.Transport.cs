using System.Buffers;
using System.Threading.Tasks.Sources;
using WebSocketCodec.Lean.Native;

namespace WebSocketCodec.Lean.Loop;

// The driver's port: output to the socket by the loop, once per iteration whoever flushed it (a chunk's worth at once),
// a flush held back only while more than PauseThreshold bytes wait for the peer, reading paused lazily, requests
// queued to the loop.
internal sealed partial class LoopConnection : IWebSocketTransport, IBufferWriter<byte>, IValueTaskSource<bool>
{
    /// <summary>Unsent bytes above which a flush waits for the socket (as a pipe's pause threshold).</summary>
    private const long PauseThreshold = 64 * 1024;

    /// <summary>Unsent bytes at or under which a waiting flush completes.</summary>
    private const long ResumeThreshold = 32 * 1024;

    private ManualResetValueTaskSourceCore<bool> _flush;
    private bool _flushPending;
    private bool _endRequested;
    private bool _outputShut;
    private bool _outputFailed;

    public bool CanHalfClose => true;

    public Memory<byte> GetOutputMemory(int sizeHint)
    {
        lock (this)
        {
            // After the close or a failed send nothing is sent: a writer still appending writes into memory no one reads.
            return _fd < 0 || _outputFailed ? new byte[Math.Max(sizeHint, 256)] : _output.GetMemory(sizeHint);
        }
    }

    public void AdvanceOutput(int count)
    {
        lock (this)
        {
            if (_fd >= 0 && !_outputFailed)
            {
                _output.Advance(count);
            }
        }
    }

    Memory<byte> IBufferWriter<byte>.GetMemory(int sizeHint) => _output.GetMemory(sizeHint); // under the lock (handshake)

    Span<byte> IBufferWriter<byte>.GetSpan(int sizeHint) => _output.GetMemory(sizeHint).Span;

    void IBufferWriter<byte>.Advance(int count) => _output.Advance(count);

    public ValueTask<bool> FlushAsync()
    {
        bool onLoop = _loop.IsOnLoop;
        lock (this)
        {
            if (_fd < 0)
            {
                return new ValueTask<bool>(false);
            }

            if (_outputFailed)
            {
                return new ValueTask<bool>(false);
            }

            long unsent = _output.MarkFlushed();
            if (unsent >= SocketOutput.ChunkSize)
            {
                // A chunk's worth goes now, on the loop or off it, rather than at the end of the iteration or the loop's
                // next turn: its chunks go back to the pool at once, warm. No flush waits here (the driver runs one at a
                // time).
                if (!SendLocked(out _))
                {
                    return new ValueTask<bool>(false);
                }
            }
            else if (!onLoop && unsent > 0)
            {
                // Less than that is written by the loop at its next turn, with whatever else this connection's writers
                // flush meanwhile: a broadcast to many websockets then costs one write per websocket and turn, not
                // one per frame (Kestrel's pipes coalesce the same way). One request, however many flushes.
                Request(RequestSend);
            }

            if (_output.Unsent > PauseThreshold)
            {
                _flushPending = true;
                _flush.Reset();
                return new ValueTask<bool>(this, _flush.Version);
            }
        }

        if (onLoop)
        {
            _loop.MarkDirty(this);
        }

        return new ValueTask<bool>(true);
    }

    public void CancelPendingFlush()
    {
        bool complete;
        lock (this)
        {
            complete = TakePendingFlushLocked();
        }

        if (complete)
        {
            _flush.SetResult(false);
        }
    }

    public void OnOutputEnding(long bytes)
    {
        // Our writes go straight to the socket: nothing to take bearings from.
    }

    public ValueTask EndOutputAsync(bool halfClose)
    {
        // A TCP socket can always end one direction: FIN once every byte marked for sending has left (never waiting
        // here for a peer that does not read: the driver tears such a peer down).
        bool onLoop = _loop.IsOnLoop;
        int complete = 0;
        lock (this)
        {
            if (_fd < 0)
            {
                return ValueTask.CompletedTask;
            }

            _endRequested = true;
            _output.MarkFlushed();
            if (!onLoop)
            {
                SendLocked(out complete);
            }
            else
            {
                ShutIfSentLocked();
            }
        }

        CompleteFlush(complete);
        if (onLoop)
        {
            _loop.MarkDirty(this);
        }

        return ValueTask.CompletedTask;
    }

    /// <summary>The bytes the peer acknowledged so far (<c>TCP_INFO</c>'s <c>tcpi_bytes_acked</c>, Linux 4.1 on), or -1
    /// when the socket is gone: the peer's progress while our next bytes wait for room in the socket.</summary>
    public unsafe long AcknowledgedBytes
    {
        get
        {
            const int Length = 232;
            byte* info = stackalloc byte[Length];
            uint length = Length;
            lock (this) // the descriptor is not closed (and its number taken by another socket) meanwhile
            {
                if (_fd < 0 || Libc.getsockopt(_fd, Libc.IPPROTO_TCP, Libc.TCP_INFO, info, &length) != 0 || length < 128)
                {
                    return -1;
                }
            }

            return (long)System.Buffers.Binary.BinaryPrimitives.ReadUInt64LittleEndian(new ReadOnlySpan<byte>(info + 120, 8)); // tcpi_bytes_acked
        }
    }

    public void Abort()
    {
        bool complete;
        lock (this)
        {
            if (_fd < 0)
            {
                return;
            }

            Libc.shutdown(_fd, Libc.SHUT_RDWR); // at once; the loop closes the descriptor with a reset
            complete = TakePendingFlushLocked();
        }

        if (complete)
        {
            _flush.SetResult(false);
        }

        Request(RequestAbort);
    }

    public void PauseReading() => _paused = true;

    public void ResumeReading()
    {
        _paused = false;
        if (_readsOff && !_stoppedReading && !_inputEnded)
        {
            lock (this)
            {
                _readsOff = false;
                UpdateInterestLocked(0);
            }
        }
    }

    public void StopReading()
    {
        _stoppedReading = true;
        lock (this)
        {
            _readsOff = true;
            UpdateInterestLocked(0);
        }
    }

    public void ScheduleTurn() => Request(RequestTurn);

    /// <summary>Writes what is marked for sending (on the loop: the end of an iteration, or the socket writable).</summary>
    public void SendMarked()
    {
        int complete;
        bool closeNow = false;
        lock (this)
        {
            if (_fd < 0)
            {
                return;
            }

            SendLocked(out complete);
            if (_state == State.Ending && _output.Unsent == 0)
            {
                closeNow = true;
            }
        }

        CompleteFlush(complete);

        if (closeNow)
        {
            CloseNow(reset: false);
        }
    }

    /// <summary>Writes what the socket takes; keeps epoll told whether to report it writable; sends our FIN once
    /// everything left after the end of our output.</summary>
    /// <param name="complete">How a waiting flush completes, outside the lock: 0 not now, 1 with true, -1 with false
    /// (the write failed).</param>
    /// <returns>False when the write failed (the connection is lost: the read side reports it).</returns>
    private bool SendLocked(out int complete)
    {
        complete = 0;
        int error = _output.Send(_fd);
        if (error != 0)
        {
            // A reset or a broken pipe: nothing more can be sent; what waits is dropped, and later appends go nowhere
            // (the read side reports the loss).
            _outputFailed = true;
            _output.Release();
            UpdateInterestLocked(0);
            complete = TakePendingFlushLocked() ? -1 : 0;
            return false;
        }

        if (_flushPending && _output.Unsent <= ResumeThreshold)
        {
            _flushPending = false;
            complete = 1;
        }

        ShutIfSentLocked();
        UpdateInterestLocked(0);
        return true;
    }

    private void ShutIfSentLocked()
    {
        if (_endRequested && !_outputShut && _output.Unsent == 0 && _fd >= 0)
        {
            _outputShut = true;
            Libc.shutdown(_fd, Libc.SHUT_WR);
        }
    }

    /// <summary>Takes a waiting flush to complete with false (outside the lock).</summary>
    private bool TakePendingFlushLocked()
    {
        bool pending = _flushPending;
        _flushPending = false;
        return pending;
    }

    private void CompleteFlush(int complete)
    {
        if (complete != 0)
        {
            _flush.SetResult(complete > 0);
        }
    }

    bool IValueTaskSource<bool>.GetResult(short token) => _flush.GetResult(token);

    ValueTaskSourceStatus IValueTaskSource<bool>.GetStatus(short token) => _flush.GetStatus(token);

    void IValueTaskSource<bool>.OnCompleted(
        Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _flush.OnCompleted(continuation, state, token, flags);
}
