using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using DotNetty.Buffers;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

// Reading: every whole frame of an inbound buffer, decoded in place; the session carries a header split between two
// buffers, gathers a frame that spans several, and discards what follows a violation.
public sealed partial class WebSocketChannelHandler
{
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
            if (_session.State != WebSocketSessionState.Closed && !_finished)
            {
                _sender!.LoopSent = false;
                OperationStatus status = Receive(buffer);
                _answering = _sender.LoopSent;
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
        var handler = new CallbacksHandler(_listener!);
        if (buffer.IsSingleIoBuffer && buffer is not CompositeByteBuffer)
        {
            // The buffer is ours until released: payloads are unmasked in its memory.
            return ReceiveSpan(buffer.GetSpan(buffer.ReaderIndex, buffer.ReadableBytes), receivedAt, ref handler);
        }

        OperationStatus result = OperationStatus.NeedMoreData;
        foreach (ReadOnlyMemory<byte> segment in buffer.UnreadSequence)
        {
            OperationStatus status = ReceiveSpan(MemoryMarshal.AsMemory(segment).Span, receivedAt, ref handler);
            result = result == OperationStatus.InvalidData ? result : status;
            if (_session.State == WebSocketSessionState.Closed)
            {
                break;
            }
        }

        return result;
    }

    private OperationStatus ReceiveSpan(Span<byte> input, long receivedAt, ref CallbacksHandler handler)
    {
        OperationStatus result = OperationStatus.NeedMoreData;
        while (true)
        {
            OperationStatus status;
            int used;
            try
            {
                status = _session.Receive(input, receivedAt, ref handler, out used);
            }
            catch (Exception error)
            {
                // The application failed in a callback: 1011, and the drain goes on after the frame it was given.
                _error ??= error;
                used = _session.OnHandlerFailed();
                status = OperationStatus.InvalidData;
                input = input.Slice(used);
                result = status;
                continue;
            }

            return result == OperationStatus.InvalidData ? result : status;
        }
    }

    private void AfterReceive(OperationStatus status)
    {
        if (status == OperationStatus.InvalidData)
        {
            // A violation (or a failed callback) fails the connection: the session queued one Close with its status and
            // discards the input from then on. Send it now, end our output right behind it, keep reading until the
            // peer's end, and let the close timeout bound the rest.
            bool endOutput = _session.IsDraining && _session.State != WebSocketSessionState.Closed;
            if (endOutput && Context.Pipeline.Get<SslStreamHandler>() is { } tls)
            {
                tls.TrackNetworkWrites = true; // the output ends once the Close's record reached the transport
            }

            _output!.TrackWrites = true;
            _output.Flush();
            ChannelActions.EnsureReading(Context);
            ArmTimer();
            if (endOutput)
            {
                EndOutput();
            }
        }

        if (_session.State == WebSocketSessionState.Closed)
        {
            if (_session.Timeout is SessionTimerResult.CloseTimeout)
            {
                GiveUp(); // the drain ran out of bytes
                return;
            }

            // The peer's Close arrived (and was answered if we had not sent ours), or its Close broke a rule.
            OnClosedByPeer();
        }
    }

    private struct CallbacksHandler(IWebSocketFrameListener callbacks) : IFrameHandler
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
