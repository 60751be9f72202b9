using System.Buffers;
using System.Buffers.Binary;
using System.Security.Cryptography;
using System.Text;

namespace WebSocketCodec.Testing;

/// <summary>
/// WebSocket frames as bytes on the wire, written here byte by byte as RFC 6455 §5.2 lays them out (not by the
/// library's encoder), so a test's input does not depend on the code under test, and so a test can write what a
/// correct peer never would: reserved opcodes and RSV bits, fragmented or long control frames, unmasked client frames,
/// a length field that announces more than follows; and read back, frame by frame, what a peer wrote.
/// </summary>
/// <remarks>
/// <code>
///  0               1               2               3
///  0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// | Masking-key (continued)       |          Payload Data         |
/// </code>
/// The length is written in its shortest form (7 bits up to 125, 16 bits up to 65,535, else 64 bits).
/// </remarks>
public static class WireFrames
{
    /// <summary>A frame as a client sends it: masked with a fresh random key.</summary>
    public static byte[] Client(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true) =>
        Frame(opcode, payload, fin, maskKey: NewMaskKey());

    /// <summary>A frame as a client sends it (masked with a fresh random key), with its first byte given whole: FIN
    /// (0x80), RSV1-3 (0x40, 0x20, 0x10) and the opcode; <c>0xC2</c> is a final binary frame with RSV1 set.</summary>
    public static byte[] Client(byte first, ReadOnlySpan<byte> payload) => Frame(first, payload, NewMaskKey());

    /// <summary>A frame as a server sends it: not masked.</summary>
    public static byte[] Server(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true) =>
        Frame(opcode, payload, fin);

    /// <summary>A client's Close frame (masked) with <paramref name="status"/> and <paramref name="reason"/>.</summary>
    public static byte[] ClientClose(ushort status, string reason = "") =>
        Client(WebSocketOpcode.Close, ClosePayload(status, reason));

    /// <summary>A Close frame's payload: the status (big-endian), then the reason in UTF-8.</summary>
    public static byte[] ClosePayload(ushort status, string reason = "")
    {
        var payload = new byte[2 + Encoding.UTF8.GetByteCount(reason)];
        BinaryPrimitives.WriteUInt16BigEndian(payload, status);
        Encoding.UTF8.GetBytes(reason, payload.AsSpan(2));
        return payload;
    }

    /// <summary>The status in a Close frame's payload: 1005 (no status received) when it is shorter than two bytes.</summary>
    public static int CloseStatusOf(ReadOnlySpan<byte> closePayload) =>
        closePayload.Length >= 2 ? BinaryPrimitives.ReadUInt16BigEndian(closePayload) : 1005;

    /// <summary>Any frame.</summary>
    /// <param name="opcode">Any 4-bit value: <c>(WebSocketOpcode)3</c> is a reserved opcode.</param>
    /// <param name="payload">The payload, unmasked (it is masked here when <paramref name="maskKey"/> is given).</param>
    /// <param name="fin">FIN: the last frame of its message.</param>
    /// <param name="rsv">RSV1-3 as a 3-bit value: 4 is RSV1, 2 is RSV2, 1 is RSV3.</param>
    /// <param name="maskKey">The mask key, its wire bytes as a little-endian integer as the library takes it
    /// (<c>0x44332211</c> is <c>11 22 33 44</c> on the wire); null writes an unmasked frame.</param>
    /// <param name="announcedLength">The length the header announces, when it should lie about the payload that
    /// follows (a header alone: an empty payload and a length of 2^24).</param>
    public static byte[] Frame(
        WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true, int rsv = 0, int? maskKey = null, ulong? announcedLength = null) =>
        Frame((byte)((fin ? 0x80 : 0) | (rsv << 4) | (int)opcode), payload, maskKey, announcedLength);

    /// <summary>Any frame, with its first byte (FIN, RSV1-3, opcode) given whole; see <see cref="Frame(WebSocketOpcode,
    /// ReadOnlySpan{byte}, bool, int, int?, ulong?)"/> for the rest.</summary>
    public static byte[] Frame(byte first, ReadOnlySpan<byte> payload, int? maskKey = null, ulong? announcedLength = null)
    {
        ulong length = announcedLength ?? (ulong)payload.Length;
        int lengthBytes = length < 126 ? 0 : length <= ushort.MaxValue ? 2 : 8;
        int headerLength = 2 + lengthBytes + (maskKey is null ? 0 : 4);
        var frame = new byte[headerLength + payload.Length];
        frame[0] = first;
        frame[1] = (byte)((maskKey is null ? 0 : 0x80) | lengthBytes switch { 0 => (int)length, 2 => 126, _ => 127 });
        if (lengthBytes == 2)
        {
            BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(2), (ushort)length);
        }
        else if (lengthBytes == 8)
        {
            BinaryPrimitives.WriteUInt64BigEndian(frame.AsSpan(2), length);
        }

        payload.CopyTo(frame.AsSpan(headerLength));
        if (maskKey is int key)
        {
            Span<byte> keyBytes = frame.AsSpan(headerLength - 4, 4);
            BinaryPrimitives.WriteInt32LittleEndian(keyBytes, key);
            for (int i = 0; i < payload.Length; i++)
            {
                frame[headerLength + i] ^= keyBytes[i & 3];
            }
        }

        return frame;
    }

    /// <summary>The frames in <paramref name="bytes"/>, read as <paramref name="reader"/> reads them (every rule applied;
    /// UTF-8 too unless <paramref name="validateUtf8"/> is false); asserts they are all whole and valid.</summary>
    public static List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Read(ReadOnlySpan<byte> bytes, WebSocketRole reader, bool validateUtf8 = true)
    {
        var decoder = new FrameDecoder(reader, validateUtf8 ? null : new FrameDecoderOptions { ValidateUtf8 = false });
        Span<byte> rest = bytes.ToArray();
        var frames = new List<(WebSocketOpcode, bool, byte[])>();
        while (!rest.IsEmpty)
        {
            OperationStatus status = decoder.ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out _);
            Assert.True(status == OperationStatus.Done, $"The bytes do not decode: {status} {decoder.Violation} after {frames.Count} frames.");
            frames.Add((header.Opcode, header.Fin, payload.ToArray()));
            rest = rest.Slice((int)header.FrameLength);
        }

        return frames;
    }

    /// <summary>A fresh random mask key, as a client draws one for every frame.</summary>
    public static int NewMaskKey() => RandomNumberGenerator.GetInt32(int.MinValue, int.MaxValue);
}
