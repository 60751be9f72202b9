using System.Buffers.Binary;
using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>Builds frames byte by byte, independently of the library's encoder, so the seeds can be any shape: minimal
/// or not, masked or not, any first byte.</summary>
public static class WireFrame
{
    /// <summary>The key the seeds mask with (its bytes are all different, so a key rotation bug shows).</summary>
    public static readonly byte[] MaskKey = [0x37, 0xFA, 0x21, 0x3D];

    /// <summary>A frame with first byte <paramref name="first"/> (FIN, RSV and opcode) and the given payload.</summary>
    /// <param name="first">FIN | RSV | opcode.</param>
    /// <param name="payload">The payload, unmasked.</param>
    /// <param name="masked">Whether to mask it (a client's frame, read by a server).</param>
    /// <param name="form">The length encoding: -1 minimal, 0 7-bit, 1 16-bit, 2 64-bit.</param>
    public static byte[] Build(byte first, ReadOnlySpan<byte> payload, bool masked, int form = -1)
    {
        int length = payload.Length;
        if (form < 0)
        {
            form = length <= 125 ? 0 : length <= 65535 ? 1 : 2;
        }

        var bytes = new List<byte>(payload.Length + 14) { first };
        byte maskBit = masked ? (byte)0x80 : (byte)0;
        switch (form)
        {
            case 0:
                bytes.Add((byte)(maskBit | length));
                break;
            case 1:
                bytes.Add((byte)(maskBit | 126));
                bytes.Add((byte)(length >> 8));
                bytes.Add((byte)length);
                break;
            default:
                bytes.Add((byte)(maskBit | 127));
                byte[] ext = new byte[8];
                BinaryPrimitives.WriteUInt64BigEndian(ext, (ulong)length);
                bytes.AddRange(ext);
                break;
        }

        if (masked)
        {
            bytes.AddRange(MaskKey);
        }

        for (int i = 0; i < payload.Length; i++)
        {
            bytes.Add(masked ? (byte)(payload[i] ^ MaskKey[i & 3]) : payload[i]);
        }

        return [.. bytes];
    }

    /// <summary>A final frame of <paramref name="opcode"/>.</summary>
    public static byte[] Final(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool masked) =>
        Build((byte)(0x80 | (int)opcode), payload, masked);

    /// <summary>A Close payload: the status big-endian, then the reason's UTF-8.</summary>
    public static byte[] ClosePayload(int status, string reason = "")
    {
        byte[] text = Encoding.UTF8.GetBytes(reason);
        byte[] payload = new byte[2 + text.Length];
        BinaryPrimitives.WriteUInt16BigEndian(payload, (ushort)status);
        text.CopyTo(payload, 2);
        return payload;
    }

    /// <summary>Joins frames into one stream.</summary>
    public static byte[] Concat(params byte[][] frames) => [.. frames.SelectMany(f => f)];
}
