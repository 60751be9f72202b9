using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec;

// The loop's side: every whole frame of a read dispatched, one flush per read, the pause rule, and the loop's turns.
public sealed partial class WebSocketDriver
{
    private OperationStatus _readStatus = OperationStatus.NeedMoreData;
    private bool _answered;
    private int _readPaused;
    private bool _listenerWaiting;
    private bool _pausedForAnswer;
    private Exception? _listenerFailure;
    private volatile bool _listenerDone;
    private bool _awaitingEnd;
    private long _drainedAtEnd;
    private bool _finished;

    /// <summary>Hands the driver one buffer of received bytes (payloads are unmasked in place: the memory must stay the
    /// host's until the call returns). Every byte is consumed: the session carries a header cut between buffers and
    /// gathers a frame that spans several. Call <see cref="ReadComplete"/> after the last buffer of a read.</summary>
    /// <param name="bytes">The bytes received.</param>
    public void Receive(Span<byte> bytes)
    {
        if (bytes.IsEmpty || ReceiveAfterEnd(bytes.Length))
        {
            return;
        }

        bool stopped;
        try
        {
            lock (_output.Sync)
            {
                long receivedAt = _time.GetTimestamp();
                var handler = new ListenerHandler(_listener!);
                EnterLoop();
                try
                {
                    ReceiveSegment(bytes, receivedAt, ref handler);
                }
                finally
                {
                    ExitLoop();
                }

                stopped = AfterReceiveLocked(bytes.Length, ref handler);
            }
        }
        finally
        {
            _output.RunHandedOver(); // the end of a flush that completed during the dispatch (whatever became of it)
        }

        if (stopped)
        {
            _output.ReportWritability(false);
        }
    }

    /// <summary>Hands the driver one read of received bytes in segments (payloads unmasked in place in them); see
    /// <see cref="Receive(Span{byte})"/>. Every byte is consumed.</summary>
    /// <param name="bytes">The bytes received.</param>
    public void Receive(in ReadOnlySequence<byte> bytes)
    {
        if (bytes.IsEmpty || ReceiveAfterEnd(bytes.Length))
        {
            return;
        }

        bool stopped;
        try
        {
            lock (_output.Sync)
            {
                long receivedAt = _time.GetTimestamp(); // once per read, not per segment
                var handler = new ListenerHandler(_listener!);
                EnterLoop();
                try
                {
                    foreach (ReadOnlyMemory<byte> segment in bytes)
                    {
                        // The host's memory is ours until the call returns: payloads are unmasked in it.
                        if (!segment.IsEmpty && !ReceiveSegment(MemoryMarshal.AsMemory(segment).Span, receivedAt, ref handler))
                        {
                            break;
                        }
                    }
                }
                finally
                {
                    ExitLoop();
                }

                stopped = AfterReceiveLocked(bytes.Length, ref handler);
            }
        }
        finally
        {
            _output.RunHandedOver(); // the end of a flush that completed during the dispatch (whatever became of it)
        }

        if (stopped)
        {
            _output.ReportWritability(false);
        }
    }

    /// <summary>Ends one read (after its <see cref="Receive(Span{byte})"/> calls): flushes what the read produced, fails
    /// the connection after a violation (ending our output right behind the Close), ends the websocket after the close
    /// exchange, calls the listener's <see cref="IWebSocketFrameListener.OnReadCompleteAsync"/>, and pauses reading while
    /// an answering listener's output waits for the transport.</summary>
    public void ReadComplete()
    {
        if (!EndRead())
        {
            return;
        }

        ValueTask held;
        try
        {
            held = _listener!.OnReadCompleteAsync(_abortSource.Token);
        }
        catch (Exception error)
        {
            FailListener(error);
            return;
        }

        if (!held.IsCompleted)
        {
            OnListenerHolds();
            _listenerWaiting = true;
            PauseReading();
            _ = AwaitListenerAsync(held);
            return;
        }

        try
        {
            held.GetAwaiter().GetResult();
        }
        catch (Exception error)
        {
            FailListener(error);
            return;
        }

        PauseIfAnswering();
    }

    /// <summary>The protocol's part of the end of a read: flush, the failure path, the end after the close exchange.</summary>
    /// <returns>Whether the listener's read-complete callback comes next (the websocket is open and not failed).</returns>
    private bool EndRead()
    {
        if (_finished || _awaitingEnd)
        {
            return false;
        }

        bool failed = _readStatus == OperationStatus.InvalidData;
        _readStatus = OperationStatus.NeedMoreData;
        if (failed && _transport.CanHalfClose)
        {
            _transport.OnOutputEnding(_output.Unflushed); // the flush below carries the Close, the last of our output
        }

        _output.Flush(); // never waits: the loop does not wait on the network
        if (failed)
        {
            if (_session.Violation != ProtocolViolation.None)
            {
                WebSocketTelemetry.Violations.Add(1, new KeyValuePair<string, object?>("websocket.violation", _session.Violation.ToString()));
            }

            // The connection is failed (RFC 6455 §7.1.7): Close, then at once the end of our output (a TCP half-close,
            // END_STREAM), while the session discards the peer's side until its end; a transport that cannot
            // half-close ends its output with the connection.
            _ = EndOutputAsync(halfCloseOnly: true);
        }

        if (_session.State == WebSocketSessionState.Closed)
        {
            if (_session.Timeout is SessionTimerResult.CloseTimeout || Role == WebSocketRole.Server)
            {
                Finish(); // the close exchange is complete (or the drain ran out of bytes): close the transport now
            }
            else
            {
                AwaitServerEnd();
            }

            return false;
        }

        return !_session.IsDraining; // nothing is delivered after a failure: no read-complete callback
    }

    /// <summary>The peer's direction ended (FIN, END_STREAM, a reset, a transport error): the websocket ends. Call it
    /// on the loop, after the last bytes were handed over (instead of <see cref="ReadComplete"/> for that read: what the
    /// read produced is flushed, but the listener's read-complete callback is not called).</summary>
    /// <param name="error">The transport's error, or null for an orderly end.</param>
    public void InputEnded(Exception? error = null)
    {
        if (error is null)
        {
            _ = EndRead(); // what the last read produced (an answer to the peer's Close) goes out first
        }

        if (_finished)
        {
            return;
        }

        if (error is not null && !((_session.IsDraining || TransportWasLost) && IsTransportEnd(error)))
        {
            // After the connection was failed (our Close sent, our output ended) a reset, or the abort a host makes of
            // the peer's FIN, is only how the transport ends: the violation or the failed listener stays the cause.
            _error ??= StoppedByApplication ? new OperationCanceledException("The websocket was aborted.", error) : error;
        }

        Finish();
    }

    /// <summary>Runs what the driver asked for with <see cref="IWebSocketTransport.ScheduleTurn"/>: due timers, the end of
    /// the listener's wait, an abort, resuming reads once the output drained. On the loop.</summary>
    public void RunTurn()
    {
        if (_finished)
        {
            return;
        }

        if (Stopped)
        {
            Finish();
            return;
        }

        if (_awaitingEnd)
        {
            if (_timerDue)
            {
                _timerDue = false;
                _closeTimedOut = true; // the server did not end the connection within the close timeout
                Finish();
            }

            return;
        }

        if (_listenerDone)
        {
            _listenerDone = false;
            _listenerWaiting = false;
            _heldByListener = false;
            if (_listenerFailure is { } failure)
            {
                _listenerFailure = null;
                FailListener(failure);
                return;
            }

            _pausedForAnswer = _answered; // the read the listener held may have answered: the pause rule applies
            _answered = false;
        }

        if (_rearmTimer)
        {
            _rearmTimer = false;
            lock (_output.Sync)
            {
                ArmTimer();
            }
        }

        bool acted = false;
        if (_timerDue && OnTimerDue(out acted))
        {
            Finish(); // the peer is gone or unresponsive: close the transport now
            return;
        }

        // A timer that did nothing does not resume reading: a peer that sends and never reads would refresh the
        // keep-alive's clock at every early firing, and never be sent the Ping it cannot answer.
        if (Volatile.Read(ref _readPaused) != 0 && !_listenerWaiting && (acted || !_pausedForAnswer || !ShouldPause()))
        {
            // Drained, closing, or a timer acted (read once more: the answer to its Ping may be waiting).
            Volatile.Write(ref _readPaused, 0);
            _transport.ResumeReading();
        }
    }

    /// <summary>Whether the bytes came after the websocket ended, or after the close exchange while a client waits for
    /// the server's end (discarded, bounded).</summary>
    private bool ReceiveAfterEnd(long length)
    {
        if (_finished)
        {
            return true;
        }

        if (!_awaitingEnd)
        {
            return false;
        }

        _drainedAtEnd += length;
        if (_drainedAtEnd >= _session.Options.MaxDrainBytes)
        {
            _closeTimedOut = true;
            Finish();
        }

        return true;
    }

    /// <summary>One segment into the session; false once the close exchange ended (nothing after it is read).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool ReceiveSegment(Span<byte> span, long receivedAt, ref ListenerHandler handler)
    {
        while (true)
        {
            OperationStatus status;
            int used;
            try
            {
                status = _session.Receive(span, receivedAt, ref handler, out used);
            }
            catch (Exception error)
            {
                // The application failed: 1011, and the connection is failed as for a violation (the drain goes on
                // after the frame it was given).
                _error ??= error;
                used = _session.OnHandlerFailed();
                status = OperationStatus.InvalidData;
            }

            if (status == OperationStatus.InvalidData || _readStatus != OperationStatus.InvalidData)
            {
                _readStatus = status;
            }

            if (_session.State == WebSocketSessionState.Closed)
            {
                return false;
            }

            if (used >= span.Length)
            {
                return true;
            }

            span = span[used..];
        }
    }

    /// <summary>The loop starts dispatching a read (under the output's lock): it owns the output until
    /// <see cref="ExitLoop"/>; other threads queue what they send meanwhile, or wait for the end asynchronously.</summary>
    private void EnterLoop()
    {
        _loopThread = Environment.CurrentManagedThreadId;
        ThreadLocks.Enter();
        Sender.LoopSent = false;
        _output.BeginDispatch();
    }

    private void ExitLoop()
    {
        _loopThread = 0;
        ThreadLocks.Exit();
        _answered |= Sender.LoopSent;
        _output.EndDispatch();
        // What other threads sent during the read goes right behind it (looked at after the end was published: a
        // message queued in between is seen here, or its sender saw the end and scheduled a run).
        Volatile.Read(ref _inbox)?.RunAfterDispatchLocked();
    }

    /// <returns>Whether the websocket just stopped being writable (report it outside the lock).</returns>
    private bool AfterReceiveLocked(long length, ref ListenerHandler handler)
    {
        WebSocketTelemetry.BytesReceived.Add(length);
        if (handler.Frames > 0)
        {
            WebSocketTelemetry.FramesReceived.Add(handler.Frames);
            WebSocketTelemetry.MessagesReceived.Add(handler.Messages);
        }

        if (_session.State == WebSocketSessionState.CloseSent && !_armedForClose)
        {
            ArmTimer(); // the session sent a Close (a violation, a failed listener): the close timeout runs
        }

        return _output.AfterAppendLocked();
    }

    /// <summary>A listener that answers what it reads (an echo) makes output as fast as the peer sends: while that
    /// output waits for the transport, reading stops until it is taken, a timer fires or the websocket ends. A listener
    /// that only consumes keeps reading (its application's sends wait at the high water mark instead), so two peers that
    /// stream to each other never stop each other. After our Close reading goes on to find the answer.</summary>
    private void PauseIfAnswering()
    {
        bool answered = _answered;
        _answered = false;
        if (!answered || !ShouldPause())
        {
            return;
        }

        _pausedForAnswer = true;
        Interlocked.Exchange(ref _readPaused, 1);
        if (!ShouldPause())
        {
            Volatile.Write(ref _readPaused, 0); // drained in between
            return;
        }

        _transport.PauseReading();
    }

    private void PauseReading()
    {
        _pausedForAnswer = false;
        if (Interlocked.Exchange(ref _readPaused, 1) == 0)
        {
            _transport.PauseReading();
        }
    }

    private bool ShouldPause() =>
        (_output.IsFlushing || !_output.IsWritable) && !_output.IsEnded && !Stopped && !_timerDue
        && _session.State == WebSocketSessionState.Open;

    /// <summary>Waits for the listener's read-complete work off the loop, then asks for a turn to go on.</summary>
    private async Task AwaitListenerAsync(ValueTask held)
    {
        try
        {
            await held.ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (Stopped)
        {
            // Aborted: the turn ends the websocket.
        }
        catch (Exception error)
        {
            _listenerFailure = error;
        }

        _listenerDone = true;
        _transport.ScheduleTurn();
    }

    /// <summary>The application failed outside a frame callback: 1011, and the connection is failed as for a
    /// violation.</summary>
    private void FailListener(Exception error)
    {
        _error ??= error;
        lock (_output.Sync)
        {
            _session.OnHandlerFailed();
            if (!_armedForClose)
            {
                ArmTimer();
            }
        }

        _readStatus = OperationStatus.InvalidData;
        if (Volatile.Read(ref _readPaused) != 0)
        {
            Volatile.Write(ref _readPaused, 0);
            _transport.ResumeReading(); // the drain reads until the peer's end
        }

        ReadComplete();
    }

    private static bool IsTransportEnd(Exception error) =>
        error is IOException or OperationCanceledException or ObjectDisposedException or System.Net.Sockets.SocketException;

    private struct ListenerHandler(IWebSocketFrameListener listener) : IFrameHandler
    {
        public long Frames;
        public long Messages;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            if (((int)opcode & 0x08) == 0)
            {
                Frames++;
                Messages += fin ? 1 : 0;
                listener.OnFrame(opcode, fin, rsv, payload);
            }
            else if (opcode == WebSocketOpcode.Pong)
            {
                listener.OnPong(payload);
            }

            return true;
        }
    }
}
