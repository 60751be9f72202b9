using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

// The read loop: one <c>ReadAsync</c>, every whole frame dispatched, one <c>AdvanceTo</c>, one flush.
public sealed partial class WebSocketChannel
{
    private async Task ReadLoopAsync(IWebSocketFrameListener listener)
    {
        PipeReader reader = _transport.Input;
        while (true)
        {
            ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
            if (_aborted)
            {
                return;
            }

            ReadOnlySequence<byte> buffer = result.Buffer;
            OperationStatus status = OperationStatus.NeedMoreData;
            SessionTimerResult timer = SessionTimerResult.None;
            await EnterWriteAsync(default).ConfigureAwait(false);
            try
            {
                SequencePosition consumed = buffer.Start;
                if (!buffer.IsEmpty)
                {
                    _loopThread = Environment.CurrentManagedThreadId;
                    try
                    {
                        status = Dispatch(buffer, listener, out consumed);
                    }
                    catch (Exception error)
                    {
                        // The application failed: 1011, then the closing sequence.
                        _error = error;
                        consumed = buffer.End;
                        _session.StartClose((ushort)CloseStatus.InternalError, "internal error");
                        status = OperationStatus.InvalidData;
                    }
                    finally
                    {
                        _loopThread = 0;
                    }
                }

                if (status == OperationStatus.InvalidData)
                {
                    // Nothing after a violation is decoded: drop it, so the drain sees the peer's answer at the front.
                    consumed = buffer.End;
                }

                reader.AdvanceTo(consumed, buffer.End);
                if (result.IsCanceled && _session.State != WebSocketSessionState.Closed)
                {
                    timer = _session.OnTimer();
                    ArmTimer();
                }

                if (!_outputClosed)
                {
                    _session.WritePendingOutput(_output);
                    await FlushLockedAsync(default).ConfigureAwait(false);
                }
            }
            finally
            {
                ExitWrite();
            }

            if (status == OperationStatus.InvalidData)
            {
                if (_session.Violation != ProtocolViolation.None)
                {
                    WebSocketTelemetry.Violations.Add(1, new KeyValuePair<string, object?>("websocket.violation", _session.Violation.ToString()));
                }

                // On a transport that can end one direction (HTTP/2): Close, then END_STREAM at once; else nothing yet.
                await CompleteOutputAsync(halfCloseOnly: true).ConfigureAwait(false);

                await DrainAsync(reader, probeForClose: true).ConfigureAwait(false);
                return;
            }

            if (timer is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout)
            {
                return; // the peer is gone or unresponsive: close the transport now
            }

            if (_session.State == WebSocketSessionState.Closed)
            {
                if (Role == WebSocketRole.Client)
                {
                    // RFC 6455 §7.1.1: the server closes the TCP connection first; wait (bounded) for its FIN.
                    await DrainAsync(reader, probeForClose: false).ConfigureAwait(false);
                }

                return;
            }

            if (result.IsCompleted)
            {
                return; // the peer closed the transport without a Close: 1006
            }

            try
            {
                await listener.OnReadCompleteAsync(_abortSource.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (_aborted)
            {
                return;
            }
        }
    }

    /// <summary>Hands every whole frame in <paramref name="buffer"/> to the session and the listener.</summary>
    private OperationStatus Dispatch(in ReadOnlySequence<byte> buffer, IWebSocketFrameListener listener, out SequencePosition consumed)
    {
        var handler = new ListenerHandler(listener);
        ReadOnlySequence<byte> rest = buffer;
        OperationStatus status = OperationStatus.NeedMoreData;
        Span<byte> scratch = stackalloc byte[LongestHeader + 2];
        long receivedAt = _time.GetTimestamp(); // once per read, not per segment
        while (!rest.IsEmpty)
        {
            // The pipe's memory is ours until AdvanceTo: payloads are unmasked in it.
            Span<byte> span = MemoryMarshal.AsMemory(rest.First).Span;
            int used;
            if (span.Length < LongestHeader && !rest.IsSingleSegment)
            {
                // A header may straddle segments: offer a copy of the next few bytes. What the session consumes from
                // the copy is released from the pipe, so nothing is unmasked twice.
                int length = (int)Math.Min(rest.Length, scratch.Length);
                rest.Slice(0, length).CopyTo(scratch);
                status = _session.Receive(scratch.Slice(0, length), receivedAt, ref handler, out used);
            }
            else
            {
                status = _session.Receive(span, receivedAt, ref handler, out used);
            }

            rest = rest.Slice(used);
            if (status != OperationStatus.NeedMoreData || used == 0)
            {
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

        return status;
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

            return true;
        }
    }
}
