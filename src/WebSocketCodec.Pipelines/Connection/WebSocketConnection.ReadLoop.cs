using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

// The read loop: one <c>ReadAsync</c>, every whole frame dispatched, one <c>AdvanceTo</c>, one flush.
public sealed partial class WebSocketConnection
{
    private async Task ReadLoopAsync(IWebSocketFrameListener listener)
    {
        PipeReader reader = _transport.Input;
        bool answered = false;
        while (true)
        {
            // A listener that answers what it reads (an echo) makes output as fast as the peer sends: while that output
            // waits for the transport, stop reading until it is taken, a timer fires or the websocket ends. A listener
            // that only consumes keeps reading (its application's sends wait at the high water mark instead), so two
            // peers that stream to each other never stop each other. After our Close the loop reads on for the answer.
            while (answered && ShouldPause())
            {
                Interlocked.Exchange(ref _loopWaiting, 1);
                if (ShouldPause())
                {
                    await _wake.WaitAsync().ConfigureAwait(false); // flushed, a timer, an abort, or the output ended
                }

                Volatile.Write(ref _loopWaiting, 0);
            }

            if (_aborted)
            {
                return;
            }

            if (_timerDue && OnTimerDue())
            {
                return; // the peer is gone or unresponsive: close the transport now
            }

            ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
            if (_aborted)
            {
                return;
            }

            ReadOnlySequence<byte> buffer = result.Buffer;
            OperationStatus status = OperationStatus.NeedMoreData;
            bool stopped;
            lock (_output.Sync)
            {
                SequencePosition consumed = buffer.Start;
                if (!buffer.IsEmpty)
                {
                    _loopThread = Environment.CurrentManagedThreadId;
                    ThreadLocks.Enter();
                    Sender.LoopSent = false;
                    try
                    {
                        status = Dispatch(buffer, listener, out consumed);
                    }
                    finally
                    {
                        _loopThread = 0;
                        ThreadLocks.Exit();
                    }

                    answered = Sender.LoopSent;
                }

                reader.AdvanceTo(consumed, buffer.End);
                if (_session.State == WebSocketSessionState.CloseSent && !_armedForClose)
                {
                    ArmTimer(); // the session sent a Close (a violation, a failed listener): the close timeout runs
                }

                stopped = _output.AfterAppendLocked();
            }

            if (stopped)
            {
                _output.ReportWritability(false);
            }

            if (status == OperationStatus.InvalidData && _transport is IHalfClosingDuplexPipe { CanHalfClose: true } ending)
            {
                ending.OnOutputEnding(_output.Unflushed); // the flush below carries the Close, the last of our output
            }

            _output.Flush(); // never waits: the loop does not wait on the network

            if (status == OperationStatus.InvalidData)
            {
                if (_session.Violation != ProtocolViolation.None)
                {
                    WebSocketTelemetry.Violations.Add(1, new KeyValuePair<string, object?>("websocket.violation", _session.Violation.ToString()));
                }

                // The connection is failed (RFC 6455 §7.1.7): Close, then at once the end of our output (a TCP
                // half-close, END_STREAM, a plain pipe's completed writer), while the session discards the peer's side
                // until its end; a transport that says it cannot half-close ends its output with the connection.
                _ = EndOutputAsync(halfCloseOnly: true);
            }

            if (_session.State == WebSocketSessionState.Closed)
            {
                if (_session.Timeout is SessionTimerResult.CloseTimeout)
                {
                    return; // the drain ran out of bytes
                }

                if (Role == WebSocketRole.Client)
                {
                    // RFC 6455 §7.1.1: the server closes the TCP connection first; wait (bounded) for its FIN.
                    await DrainAsync(reader).ConfigureAwait(false);
                }

                return;
            }

            if (result.IsCompleted)
            {
                return; // the peer closed the transport without a Close: 1006
            }

            if (_session.IsDraining)
            {
                continue; // nothing is delivered after a failure: no read-complete callback
            }

            try
            {
                ValueTask held = listener.OnReadCompleteAsync(_abortSource.Token);
                if (!held.IsCompleted)
                {
                    OnListenerHolds();
                }

                await held.ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (_aborted)
            {
                return;
            }
            finally
            {
                _heldByListener = false;
            }
        }
    }

    private bool ShouldPause() =>
        (_output.IsFlushing || !_output.IsWritable) && !_output.IsEnded && !_aborted && !_timerDue
        && _session.State == WebSocketSessionState.Open;

    /// <summary>Applies the session's timers and the slow-consumer policy; returns whether the loop must end now.</summary>
    private bool OnTimerDue()
    {
        _timerDue = false;
        SessionTimerResult timer;
        lock (_output.Sync)
        {
            timer = _session.State == WebSocketSessionState.Closed ? SessionTimerResult.None : _session.OnTimer();
            if (timer == SessionTimerResult.None && _session.State == WebSocketSessionState.Open && !_output.IsWritable
                && _slowWatch.Check(_time, _session.Options.SlowConsumerTimeout, _output.Flushed, out _))
            {
                // The peer took none of our output for the slow-consumer timeout: 1008, then the close timeout bounds
                // the rest.
                StartSlowConsumerCloseLocked();
            }
            else
            {
                ArmTimer();
            }
        }

        _output.Flush();
        return timer is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout;
    }

    /// <summary>Gives up a peer that reads too slowly (the slow-consumer timeout, or a group's
    /// <see cref="SlowMemberPolicy.Close"/>): Close 1008 "slow consumer", then the close timeout bounds the rest. Under
    /// the output's lock; flush after.</summary>
    internal void StartSlowConsumerCloseLocked()
    {
        if (_session.State == WebSocketSessionState.Open)
        {
            _slowConsumer = true;
            _session.StartClose(CloseStatus.PolicyViolation, "slow consumer");
            WebSocketTelemetry.SlowConsumers.Add(1);
        }

        ArmTimer();
    }

    /// <summary>Hands every whole frame in <paramref name="buffer"/> to the session and the listener. The session
    /// carries a header cut between segments or reads itself, so every byte is consumed unless the session ended.</summary>
    private OperationStatus Dispatch(in ReadOnlySequence<byte> buffer, IWebSocketFrameListener listener, out SequencePosition consumed)
    {
        var handler = new ListenerHandler(listener);
        ReadOnlySequence<byte> rest = buffer;
        OperationStatus result = OperationStatus.NeedMoreData;
        long receivedAt = _time.GetTimestamp(); // once per read, not per segment
        while (!rest.IsEmpty)
        {
            // The pipe's memory is ours until AdvanceTo: payloads are unmasked in it.
            Span<byte> span = MemoryMarshal.AsMemory(rest.First).Span;
            OperationStatus status;
            int used;
            try
            {
                status = _session.Receive(span, receivedAt, ref handler, out used);
            }
            catch (Exception error)
            {
                // The application failed: 1011, and the connection is failed as for a violation (nothing more parsed).
                _error ??= error;
                used = _session.OnHandlerFailed();
                status = OperationStatus.InvalidData;
            }

            rest = rest.Slice(used);
            if (status == OperationStatus.InvalidData)
            {
                result = status;
            }
            else if (result != OperationStatus.InvalidData)
            {
                result = status;
            }

            if (_session.State == WebSocketSessionState.Closed)
            {
                rest = rest.Slice(rest.End); // nothing after the close exchange is read
                break;
            }
        }

        consumed = rest.Start;
        WebSocketTelemetry.BytesReceived.Add(buffer.Length - rest.Length);
        if (handler.Frames > 0)
        {
            WebSocketTelemetry.FramesReceived.Add(handler.Frames);
            WebSocketTelemetry.MessagesReceived.Add(handler.Messages);
        }

        return result;
    }


    private sealed class DiscardingListener : IWebSocketFrameListener
    {
        public static readonly DiscardingListener Instance = new();

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }

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
