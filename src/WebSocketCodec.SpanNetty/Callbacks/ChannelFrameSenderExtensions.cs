using DotNetty.Buffers;

namespace WebSocketCodec.SpanNetty;

/// <summary>The core <see cref="WebSocketFrameSender"/> with frames in SpanNetty buffers, the prefix tier on an
/// <see cref="IByteBuffer"/>: reach for it to send a payload you write into a pooled SpanNetty buffer without copying
/// it (<see cref="AllocatePrefixed"/>, then <see cref="SendPrefixed"/>).</summary>
public static class ChannelFrameSenderExtensions
{
    /// <summary>The room to leave in front of a payload for <see cref="SendPrefixed"/>: the longest header.</summary>
    public const int PrefixRoom = FrameHeaderReader.MaxHeaderLength;

    /// <summary>A pooled buffer for <see cref="SendPrefixed"/>: <see cref="PrefixRoom"/> bytes left free in front, its
    /// reader and writer index after them; write the payload, then send it. Any thread may call it: off SpanNetty's
    /// event loops the buffer comes from SpanNetty's array-pool allocator, as SpanNetty's pooled allocator is not safe
    /// on other threads.</summary>
    /// <param name="sender">The websocket's sender.</param>
    /// <param name="payloadCapacity">The payload's room.</param>
    /// <returns>The buffer; <see cref="SendPrefixed"/> takes it over.</returns>
    public static IByteBuffer AllocatePrefixed(this WebSocketFrameSender sender, int payloadCapacity)
    {
        ArgumentNullException.ThrowIfNull(sender);
        ArgumentOutOfRangeException.ThrowIfNegative(payloadCapacity);
        IByteBuffer buffer = ThreadSafeAllocation.For(ByteBufferUtil.DefaultAllocator).Buffer(PrefixRoom + payloadCapacity);
        buffer.SetIndex(PrefixRoom, PrefixRoom);
        return buffer;
    }

    /// <summary>Tier 2 (prefix encoder) on a buffer, on the read loop: the readable bytes of <paramref name="frame"/> are
    /// the payload; the header is written into the room in front of them (see <see cref="AllocatePrefixed"/>), a
    /// client's payload is masked in place, and the frame goes into the output. Takes ownership of the buffer (it is
    /// released in every case).</summary>
    /// <param name="sender">The websocket's sender.</param>
    /// <param name="frame">The payload, with room for the header in front.</param>
    /// <param name="opcode">Text, Binary or Continuation.</param>
    /// <param name="fin">Whether this frame ends its message.</param>
    /// <returns>False when the frame was dropped: our Close was sent, or the transport is gone.</returns>
    /// <exception cref="ArgumentException">The buffer has no room for the header in front of its payload.</exception>
    public static bool SendPrefixed(this WebSocketFrameSender sender, IByteBuffer frame, WebSocketOpcode opcode, bool fin = true)
    {
        ArgumentNullException.ThrowIfNull(sender);
        ArgumentNullException.ThrowIfNull(frame);
        try
        {
            int payloadLength = frame.ReadableBytes;
            int headerLength = sender.Encoder.GetHeaderLength(payloadLength);
            if (frame.ReaderIndex < headerLength)
            {
                throw new ArgumentException(
                    $"The buffer has {frame.ReaderIndex} bytes in front of its payload; the header needs {headerLength} (use AllocatePrefixed).", nameof(frame));
            }

            int start = frame.ReaderIndex - headerLength;
            if (frame.IsSingleIoBuffer)
            {
                return sender.SendPrefixed(frame.GetSpan(start, headerLength + payloadLength), headerLength, payloadLength, opcode, fin) > 0;
            }

            byte[] copy = new byte[headerLength + payloadLength];
            _ = frame.GetBytes(frame.ReaderIndex, copy, headerLength, payloadLength);
            return sender.SendPrefixed(copy, headerLength, payloadLength, opcode, fin) > 0;
        }
        finally
        {
            frame.Release();
        }
    }
}
