using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>Writes frames for one end of a connection: reach for it to encode frames inside a transport of your own;
/// on a running websocket <see cref="WebSocketFrameSender"/> sends in the same tiers with its own encoder
/// (<see cref="WebSocketFrameSender.Encoder"/>). A client masks every frame with a fresh key from a
/// <see cref="MaskKeyGenerator"/>, a server never masks. No allocation per frame. Not thread-safe.</summary>
/// <remarks>Three tiers (as in jauntsdn's codec):
/// <list type="number">
/// <item><see cref="Reserve"/>: room for header and payload in an <see cref="IBufferWriter{T}"/>, the payload written
/// in place by the caller, masked on <see cref="ReservedFrame.Commit"/>;</item>
/// <item><see cref="EncodePrefix"/>: a header written in front of a payload the caller already has in its buffer;</item>
/// <item><see cref="FrameBatch"/> and <see cref="BulkFrameWriter"/>: many frames packed into one buffer.</item>
/// </list>
/// <see cref="Write(Span{byte}, WebSocketOpcode, ReadOnlySpan{byte}, bool, int)"/> copies a payload the caller keeps,
/// masking the copy, never the source.
/// </remarks>
public sealed class FrameEncoder
{
    private readonly MaskKeyGenerator? _maskKeys;
    private readonly bool _masks;

    /// <summary>Creates an encoder for the given end of the connection.</summary>
    /// <param name="role">A client masks its frames, a server does not.</param>
    /// <param name="maskKeys">The key source for a client; when not given, the calling thread's
    /// <see cref="MaskKeyGenerator.ForCurrentThread"/> serves each frame.</param>
    public FrameEncoder(WebSocketRole role, MaskKeyGenerator? maskKeys = null)
    {
        Role = role;
        _masks = role == WebSocketRole.Client;
        _maskKeys = _masks ? maskKeys : null;
    }

    /// <summary>The end of the connection this encoder writes for.</summary>
    public WebSocketRole Role { get; }

    /// <summary>Whether frames are masked: true for a client.</summary>
    public bool MasksFrames => _masks;

    /// <summary>The header length this encoder writes for a payload of <paramref name="payloadLength"/> bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int GetHeaderLength(long payloadLength) => FrameHeaderWriter.GetHeaderLength(payloadLength, MasksFrames);

    /// <summary>The whole frame length this encoder writes for a payload of <paramref name="payloadLength"/>
    /// bytes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public long GetFrameLength(long payloadLength) => GetHeaderLength(payloadLength) + payloadLength;

    /// <summary>Tier 1: reserves a whole frame in <paramref name="writer"/> and writes its header. Fill
    /// <see cref="ReservedFrame.Payload"/>, then call <see cref="ReservedFrame.Commit"/>.</summary>
    /// <param name="writer">The buffer writer.</param>
    /// <param name="opcode">The frame's opcode.</param>
    /// <param name="payloadLength">The payload length the caller will write.</param>
    /// <param name="fin">Whether this is the final fragment.</param>
    /// <param name="rsv">RSV bits, for a negotiated extension.</param>
    public ReservedFrame Reserve(
        IBufferWriter<byte> writer, WebSocketOpcode opcode, int payloadLength, bool fin = true, int rsv = 0)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentOutOfRangeException.ThrowIfNegative(payloadLength);
        CheckFrame(opcode, payloadLength, fin);
        int headerLength = GetHeaderLength(payloadLength);
        int frameLength = checked(headerLength + payloadLength);
        Span<byte> frame = writer.GetSpan(frameLength).Slice(0, frameLength);
        int maskKey = NextMaskKey();
        FrameHeaderWriter.Write(frame, fin, rsv, opcode, payloadLength, MasksFrames, maskKey);
        return new ReservedFrame(writer, frame, headerLength, MasksFrames, maskKey);
    }

    /// <summary>
    /// Tier 2: writes the header directly in front of a payload already at
    /// <paramref name="buffer"/>[<paramref name="payloadOffset"/>..], and (for a client) masks that payload in place.
    /// Leave <see cref="FrameHeaderReader.MaxHeaderLength"/> bytes free in front of the payload to fit any header.
    /// </summary>
    /// <returns>Where the frame starts in <paramref name="buffer"/>; it ends at the payload's end.</returns>
    public int EncodePrefix(
        Span<byte> buffer, int payloadOffset, int payloadLength, WebSocketOpcode opcode, bool fin = true, int rsv = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(payloadOffset);
        ArgumentOutOfRangeException.ThrowIfNegative(payloadLength);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(payloadLength, buffer.Length - payloadOffset);
        CheckFrame(opcode, payloadLength, fin);
        int headerLength = GetHeaderLength(payloadLength);
        int start = payloadOffset - headerLength;
        if (start < 0)
        {
            throw new ArgumentException(
                $"The payload offset {payloadOffset} leaves no room for a {headerLength}-byte header.", nameof(payloadOffset));
        }

        int maskKey = NextMaskKey();
        FrameHeaderWriter.Write(buffer.Slice(start), fin, rsv, opcode, payloadLength, MasksFrames, maskKey);
        if (MasksFrames)
        {
            WebSocketMask.Apply(buffer.Slice(payloadOffset, payloadLength), maskKey);
        }

        return start;
    }

    /// <summary>Writes a whole frame, copying <paramref name="payload"/> (masked, for a client) after the header.
    /// <paramref name="payload"/> is never changed.</summary>
    /// <returns>The number of bytes written.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public int Write(
        Span<byte> destination, WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true, int rsv = 0)
    {
        CheckFrame(opcode, payload.Length, fin);
        int maskKey = NextMaskKey();
        int headerLength;
        if (payload.Length <= 125 && (uint)rsv <= 7 && destination.Length >= payload.Length + 6)
        {
            // Small frames, the common case: the 2-byte header (and key) written directly.
            destination[0] = (byte)((fin ? 0x80 : 0) | (rsv << 4) | (int)opcode);
            destination[1] = (byte)((_masks ? 0x80 : 0) | payload.Length);
            headerLength = 2;
            if (_masks)
            {
                BinaryPrimitives.WriteInt32LittleEndian(destination.Slice(2), maskKey);
                headerLength = 6;
            }
        }
        else
        {
            headerLength = FrameHeaderWriter.Write(destination, fin, rsv, opcode, payload.Length, _masks, maskKey);
        }

        Span<byte> target = destination.Slice(headerLength, payload.Length);
        if (MasksFrames)
        {
            WebSocketMask.Apply(payload, target, maskKey);
        }
        else
        {
            payload.CopyTo(target);
        }

        return headerLength + payload.Length;
    }

    /// <summary>Writes a whole frame into <paramref name="writer"/>, copying <paramref name="payload"/>.</summary>
    public void Write(
        IBufferWriter<byte> writer, WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true, int rsv = 0)
    {
        ArgumentNullException.ThrowIfNull(writer);
        int length = checked((int)GetFrameLength(payload.Length));
        writer.Advance(Write(writer.GetSpan(length), opcode, payload, fin, rsv));
    }

    /// <summary>
    /// Writes only a header, for a gathering write in which the payload follows as a separate buffer. For a client,
    /// the caller must mask the payload with the returned key (<see cref="WebSocketMask"/>) before sending it.
    /// </summary>
    /// <returns>The number of bytes written.</returns>
    public int WriteHeader(
        Span<byte> destination, WebSocketOpcode opcode, long payloadLength, out int maskKey, bool fin = true, int rsv = 0)
    {
        CheckFrame(opcode, payloadLength, fin);
        maskKey = NextMaskKey();
        return FrameHeaderWriter.Write(destination, fin, rsv, opcode, payloadLength, MasksFrames, maskKey);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int NextMaskKey() => !_masks ? 0 : (_maskKeys ?? MaskKeyGenerator.ForCurrentThread).Next();

    /// <summary>Refuses frames no peer may accept: reserved opcodes, long or fragmented control frames.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void CheckFrame(WebSocketOpcode opcode, long payloadLength, bool fin)
    {
        uint value = (uint)opcode;
        if (value > 15 || ((0x0707 >> (int)value) & 1) == 0 || (value >= 8 && (payloadLength > 125 || !fin)))
        {
            ThrowBadFrame(opcode, payloadLength, fin);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowBadFrame(WebSocketOpcode opcode, long payloadLength, bool fin)
    {
        if ((uint)opcode > 15 || ((0x0707 >> (int)opcode) & 1) == 0)
        {
            throw new ArgumentOutOfRangeException(nameof(opcode), opcode, "Reserved opcodes cannot be sent.");
        }

        throw new ArgumentException(
            $"A {opcode} control frame must be final and carry at most 125 bytes (fin={fin}, length={payloadLength}).",
            nameof(payloadLength));
    }
}
