using System.Buffers.Binary;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// Where frame headers start in a byte stream, read leniently (no rule is checked, only the lengths), so the mutator
/// can aim at header fields: the first byte (FIN, RSV, opcode), the mask bit and the payload length.
/// </summary>
public static class FrameLayout
{
    /// <summary>The offsets of the headers of <paramref name="bytes"/>, as far as lengths say (at most 64).</summary>
    public static List<int> HeaderOffsets(List<byte> bytes)
    {
        var offsets = new List<int>();
        long pos = 0;
        while (pos + 2 <= bytes.Count && offsets.Count < 64)
        {
            offsets.Add((int)pos);
            int header = HeaderLength(bytes, (int)pos, out long payload);
            if (payload < 0 || payload > bytes.Count - pos - header)
            {
                break;
            }

            pos += header + payload;
        }

        return offsets;
    }

    /// <summary>The header length at <paramref name="at"/> and the payload length it announces (-1 when it is cut
    /// or does not fit a long).</summary>
    public static int HeaderLength(List<byte> bytes, int at, out long payload)
    {
        int length7 = bytes[at + 1] & 0x7F;
        bool masked = (bytes[at + 1] & 0x80) != 0;
        int extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
        int header = 2 + extended + (masked ? 4 : 0);
        if (at + 2 + extended > bytes.Count)
        {
            payload = -1;
            return header;
        }

        Span<byte> ext = stackalloc byte[8];
        for (int i = 0; i < extended; i++)
        {
            ext[i] = bytes[at + 2 + i];
        }

        payload = extended switch
        {
            0 => length7,
            2 => BinaryPrimitives.ReadUInt16BigEndian(ext),
            _ => (long)BinaryPrimitives.ReadUInt64BigEndian(ext),
        };
        return header;
    }

    /// <summary>Rewrites the length of the header at <paramref name="at"/> to <paramref name="length"/> in the
    /// encoding <paramref name="form"/> (0: 7-bit, 1: 16-bit, 2: 64-bit; a length that does not fit is cut), keeping
    /// the mask bit and key; the payload bytes are left as they are.</summary>
    public static void SetLength(List<byte> bytes, int at, ulong length, int form)
    {
        int length7 = bytes[at + 1] & 0x7F;
        int oldExtended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
        int available = Math.Min(oldExtended, bytes.Count - at - 2);
        bytes.RemoveRange(at + 2, available);
        byte maskBit = (byte)(bytes[at + 1] & 0x80);
        switch (form)
        {
            case 0:
                bytes[at + 1] = (byte)(maskBit | (int)Math.Min(length, 125));
                break;
            case 1:
                bytes[at + 1] = (byte)(maskBit | 126);
                bytes.InsertRange(at + 2, [(byte)(length >> 8), (byte)length]);
                break;
            default:
                bytes[at + 1] = (byte)(maskBit | 127);
                byte[] ext = new byte[8];
                BinaryPrimitives.WriteUInt64BigEndian(ext, length);
                bytes.InsertRange(at + 2, ext);
                break;
        }
    }
}
