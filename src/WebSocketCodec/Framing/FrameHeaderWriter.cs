using System.Buffers.Binary;
using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>Writes RFC 6455 §5.2 frame headers, always in the minimal length encoding: the lowest layer, for a header
/// whose every field you give (the mask key included). <see cref="FrameEncoder"/> masks for its role and writes whole
/// frames.</summary>
public static class FrameHeaderWriter
{
    /// <summary>The exact header length for a payload of <paramref name="payloadLength"/> bytes: 2, 4 or 10 bytes,
    /// plus 4 for the mask key when <paramref name="masked"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int GetHeaderLength(long payloadLength, bool masked)
    {
        int length = payloadLength <= 125 ? 2 : payloadLength <= ushort.MaxValue ? 4 : 10;
        return masked ? length + 4 : length;
    }

    /// <summary>
    /// Writes a header into <paramref name="destination"/>, which must hold at least
    /// <see cref="GetHeaderLength"/> bytes.
    /// </summary>
    /// <param name="destination">Where the header goes.</param>
    /// <param name="fin">Whether this is the final fragment.</param>
    /// <param name="rsv">The RSV bits, 0-7 (RSV1 = 4).</param>
    /// <param name="opcode">The opcode.</param>
    /// <param name="payloadLength">The payload length (0 to 2^63-1).</param>
    /// <param name="masked">Whether to set MASK and write <paramref name="maskKey"/>.</param>
    /// <param name="maskKey">The mask key bytes in wire order as a little-endian integer.</param>
    /// <returns>The number of bytes written.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Write(
        Span<byte> destination, bool fin, int rsv, WebSocketOpcode opcode, long payloadLength, bool masked, int maskKey)
    {
        if ((uint)rsv > 7 || (uint)opcode > 15 || payloadLength < 0)
        {
            ThrowHelper.ThrowArgumentOutOfRange(nameof(payloadLength));
        }

        int headerLength = GetHeaderLength(payloadLength, masked);
        if (destination.Length < headerLength)
        {
            ThrowHelper.ThrowDestinationTooSmall();
        }

        destination[0] = (byte)((fin ? 0x80 : 0) | (rsv << 4) | (int)opcode);
        byte maskBit = masked ? (byte)0x80 : (byte)0;
        int offset;
        if (payloadLength <= 125)
        {
            destination[1] = (byte)(maskBit | (byte)payloadLength);
            offset = 2;
        }
        else if (payloadLength <= ushort.MaxValue)
        {
            destination[1] = (byte)(maskBit | 126);
            BinaryPrimitives.WriteUInt16BigEndian(destination.Slice(2), (ushort)payloadLength);
            offset = 4;
        }
        else
        {
            destination[1] = (byte)(maskBit | 127);
            BinaryPrimitives.WriteUInt64BigEndian(destination.Slice(2), (ulong)payloadLength);
            offset = 10;
        }

        if (masked)
        {
            BinaryPrimitives.WriteInt32LittleEndian(destination.Slice(offset), maskKey);
        }

        return headerLength;
    }

    /// <summary>Writes <paramref name="header"/> as it is (its MASK bit, key and length) into
    /// <paramref name="destination"/>.</summary>
    /// <returns>The number of bytes written, <see cref="FrameHeader.HeaderLength"/>.</returns>
    public static int Write(Span<byte> destination, in FrameHeader header) =>
        Write(destination, header.Fin, header.Rsv, header.Opcode, header.PayloadLength, header.IsMasked, header.MaskKey);
}
