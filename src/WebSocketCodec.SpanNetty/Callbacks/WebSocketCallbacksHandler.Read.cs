using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using DotNetty.Buffers;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

// Reading: every whole frame of an inbound buffer, decoded in place; a header split between two buffers is carried over.
public sealed partial class WebSocketCallbacksHandler
{
    // A header cut at the end of a buffer (at most 13 bytes), with the first bytes of the next buffer behind it.
    private readonly byte[] _carry = new byte[2 * FrameHeaderReader.MaxHeaderLength + 4];
    private int _carryLength;

    /// <inheritdoc />
    public override void ChannelRead(IChannelHandlerContext context, object message)
    {
        if (message is not IByteBuffer buffer)
        {
            context.FireChannelRead(message);
            return;
        }

        try
        {
            if (_draining)
            {
                Drain(buffer);
            }
            else if (_session.State != WebSocketSessionState.Closed && !_finished)
            {
                OperationStatus status;
                try
                {
                    status = Receive(buffer);
                }
                catch (Exception error)
                {
                    // The application failed in a callback: 1011, then the closing sequence.
                    FailApplication(error);
                    return;
                }

                AfterReceive(status);
            }
        }
        finally
        {
            buffer.Release();
        }
    }

    private OperationStatus Receive(IByteBuffer buffer)
    {
        long receivedAt = _time.GetTimestamp();
        var handler = new CallbacksHandler(_callbacks!);
        if (buffer.IsSingleIoBuffer && buffer is not CompositeByteBuffer)
        {
            // The buffer is ours until released: payloads are unmasked in its memory.
            return ReceiveSpan(buffer.GetSpan(buffer.ReaderIndex, buffer.ReadableBytes), receivedAt, ref handler);
        }

        OperationStatus status = OperationStatus.NeedMoreData;
        foreach (ReadOnlyMemory<byte> segment in buffer.UnreadSequence)
        {
            status = ReceiveSpan(MemoryMarshal.AsMemory(segment).Span, receivedAt, ref handler);
            if (status != OperationStatus.NeedMoreData)
            {
                break;
            }
        }

        return status;
    }

    private OperationStatus ReceiveSpan(Span<byte> input, long receivedAt, ref CallbacksHandler handler)
    {
        if (_carryLength > 0)
        {
            // Offer the carried header with the first bytes of this buffer behind it. What the session consumes of the
            // copy is skipped in the buffer, so nothing is unmasked or delivered twice.
            int take = Math.Min(input.Length, _carry.Length - _carryLength);
            input.Slice(0, take).CopyTo(_carry.AsSpan(_carryLength));
            int offered = _carryLength + take;
            OperationStatus carried = _session.Receive(_carry.AsSpan(0, offered), receivedAt, ref handler, out int used);
            if (carried != OperationStatus.NeedMoreData)
            {
                _carryLength = 0;
                return carried;
            }

            if (used < _carryLength)
            {
                // Still no whole header: then all of this buffer fit in the carry.
                _carryLength = offered;
                return OperationStatus.NeedMoreData;
            }

            input = input.Slice(used - _carryLength);
            _carryLength = 0;
        }

        OperationStatus status = _session.Receive(input, receivedAt, ref handler, out int consumed);
        if (status == OperationStatus.NeedMoreData && consumed < input.Length)
        {
            Span<byte> rest = input.Slice(consumed); // part of a header: the session gathers payloads itself
            rest.CopyTo(_carry);
            _carryLength = rest.Length;
        }

        return status;
    }

    private void AfterReceive(OperationStatus status)
    {
        if (status == OperationStatus.InvalidData)
        {
            // A violation: the session queued one Close with its status. Send it, then read until the peer's Close.
            StartDrain(probeForClose: true);
            return;
        }

        if (_session.State == WebSocketSessionState.Closed)
        {
            // The peer's Close arrived (and was answered if we had not sent ours).
            OnClosedByPeer();
        }
    }

    private struct CallbacksHandler(IWebSocketCallbacks callbacks) : IFrameHandler
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public readonly bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            if (((int)opcode & 0x08) == 0)
            {
                callbacks.OnFrame(opcode, fin, rsv, payload);
            }

            return true;
        }
    }
}
