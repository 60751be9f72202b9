using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec;

/// <summary>Stateless reader of RFC 6455 §5.2 frame headers: use it to look at frames without a connection's state;
/// <see cref="FrameDecoder"/> adds the stateful rules and the payload.</summary>
/// <remarks><para>It checks every rule a header alone can break and refuses an over-limit length as soon as the length
/// bytes are in, before the mask key or any payload is buffered. Stateful rules (RSV against extensions, masking
/// against the role, fragmentation, message limits) are <see cref="FrameDecoder"/>'s.</para>
/// <code>
///  byte 0          byte 1          bytes 2..         then
///  F R R R opcode  M length7       extended length   mask key (if M)
///  I S S S (4)     A (7)           length7 = 126: 16-bit, 126..65535
///  N V V V         S               length7 = 127: 64-bit, 65536..2^63-1
///    1 2 3         K
/// </code>
/// </remarks>
public static class FrameHeaderReader
{
    /// <summary>The longest header: 2 + 8 extended length + 4 mask key bytes.</summary>
    public const int MaxHeaderLength = 14;

    /// <summary>
    /// Reads a header from the start of <paramref name="source"/>.
    /// </summary>
    /// <param name="source">The bytes received so far, starting at a frame boundary.</param>
    /// <param name="maxPayloadLength">The largest payload accepted; a longer announced length yields
    /// <see cref="ProtocolViolation.FrameTooBig"/>.</param>
    /// <param name="header">The header, when the result is <see cref="OperationStatus.Done"/>.</param>
    /// <param name="bytesNeeded">When the result is <see cref="OperationStatus.NeedMoreData"/>: how many more bytes the
    /// header needs, as far as can be told from what is there (at least 1).</param>
    /// <param name="violation">When the result is <see cref="OperationStatus.InvalidData"/>: the rule broken.</param>
    /// <returns><see cref="OperationStatus.Done"/>, <see cref="OperationStatus.NeedMoreData"/> or
    /// <see cref="OperationStatus.InvalidData"/>; nothing is consumed until Done.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static OperationStatus Read(
        ReadOnlySpan<byte> source, long maxPayloadLength, out FrameHeader header, out int bytesNeeded,
        out ProtocolViolation violation)
    {
        header = default;
        violation = ProtocolViolation.None;
        if (source.Length < 2)
        {
            bytesNeeded = 2 - source.Length;
            return OperationStatus.NeedMoreData;
        }

        ref byte p = ref MemoryMarshal.GetReference(source);
        byte first = p;
        byte second = Unsafe.Add(ref p, 1);
        bool masked = (second & 0x80) != 0;
        int length7 = second & 0x7F;
        int maskLength = masked ? 4 : 0;
        bytesNeeded = 0;

        violation = CheckFirstTwoBytes(first, length7);
        if (violation != ProtocolViolation.None)
        {
            return OperationStatus.InvalidData;
        }

        long payloadLength;
        int headerLength;
        if (length7 < 126)
        {
            payloadLength = length7;
            headerLength = 2 + maskLength;
        }
        else if (length7 == 126)
        {
            if (source.Length < 4)
            {
                bytesNeeded = 4 + maskLength - source.Length;
                return OperationStatus.NeedMoreData;
            }

            payloadLength = BinaryPrimitives.ReadUInt16BigEndian(source.Slice(2));
            headerLength = 4 + maskLength;
            if (payloadLength < 126)
            {
                violation = ProtocolViolation.NonMinimalLength;
                return OperationStatus.InvalidData;
            }
        }
        else
        {
            if (source.Length < 10)
            {
                bytesNeeded = 10 + maskLength - source.Length;
                return OperationStatus.NeedMoreData;
            }

            ulong length64 = BinaryPrimitives.ReadUInt64BigEndian(source.Slice(2));
            headerLength = 10 + maskLength;
            if ((long)length64 < 0)
            {
                violation = ProtocolViolation.PayloadLengthOverflow;
                return OperationStatus.InvalidData;
            }

            if (length64 <= ushort.MaxValue)
            {
                violation = ProtocolViolation.NonMinimalLength;
                return OperationStatus.InvalidData;
            }

            payloadLength = (long)length64;
        }

        if (payloadLength > maxPayloadLength)
        {
            violation = ProtocolViolation.FrameTooBig;
            return OperationStatus.InvalidData;
        }

        if (source.Length < headerLength)
        {
            bytesNeeded = headerLength - source.Length;
            return OperationStatus.NeedMoreData;
        }

        int maskKey = masked ? Unsafe.ReadUnaligned<int>(ref Unsafe.Add(ref p, headerLength - 4)) : 0;
        if (!BitConverter.IsLittleEndian)
        {
            maskKey = BinaryPrimitives.ReverseEndianness(maskKey);
        }

        header = new FrameHeader(first, masked, maskKey, payloadLength, headerLength);
        return OperationStatus.Done;
    }

    /// <summary>
    /// Reads a header from the start of a possibly multi-segment <paramref name="source"/>. A header that straddles
    /// segments is copied (at most 14 bytes) to the stack; otherwise the first segment is read in place.
    /// </summary>
    /// <inheritdoc cref="Read(ReadOnlySpan{byte}, long, out FrameHeader, out int, out ProtocolViolation)"/>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static OperationStatus Read(
        in ReadOnlySequence<byte> source, long maxPayloadLength, out FrameHeader header, out int bytesNeeded,
        out ProtocolViolation violation)
    {
        Span<byte> scratch = stackalloc byte[MaxHeaderLength];
        return Read(HeaderBytes(source, scratch), maxPayloadLength, out header, out bytesNeeded, out violation);
    }

    /// <summary>The first (up to) <see cref="MaxHeaderLength"/> bytes of <paramref name="source"/> as one span: the
    /// first segment itself when it holds them (or is all there is), else a copy in <paramref name="scratch"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static ReadOnlySpan<byte> HeaderBytes(in ReadOnlySequence<byte> source, Span<byte> scratch)
    {
        ReadOnlySpan<byte> first = source.FirstSpan;
        return first.Length >= MaxHeaderLength || source.IsSingleSegment ? first : CopyHeaderBytes(source, scratch);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ReadOnlySpan<byte> CopyHeaderBytes(in ReadOnlySequence<byte> source, Span<byte> scratch)
    {
        int length = (int)Math.Min(MaxHeaderLength, source.Length);
        source.Slice(0, length).CopyTo(scratch);
        return scratch.Slice(0, length);
    }

    /// <summary>The rules the first two bytes alone decide: reserved opcodes and the control-frame limits.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ProtocolViolation CheckFirstTwoBytes(byte first, int length7)
    {
        int opcode = first & 0x0F;
        // Valid opcodes 0, 1, 2, 8, 9, 10: a bit set in 0b0000_0111_0000_0111.
        if (((0x0707 >> opcode) & 1) == 0)
        {
            return ProtocolViolation.ReservedOpcode;
        }

        if (opcode >= 8)
        {
            if ((first & 0x80) == 0)
            {
                return ProtocolViolation.ControlFrameFragmented;
            }

            if (length7 > 125)
            {
                return ProtocolViolation.ControlFrameTooLong;
            }
        }

        return ProtocolViolation.None;
    }
}
