using System.Buffers.Binary;
using System.Net;

namespace WebSocketCodec.Lean.Native;

/// <summary>Reads the peer's address <c>accept4</c> wrote (a <c>sockaddr_in</c> or <c>sockaddr_in6</c>).</summary>
internal static unsafe class SocketAddresses
{
    private const ushort AfInet = 2;
    private const ushort AfInet6 = 10;

    public static IPEndPoint? ToEndPoint(byte* address, uint length)
    {
        var bytes = new ReadOnlySpan<byte>(address, (int)Math.Min(length, 128u));
        if (bytes.Length < 2)
        {
            return null;
        }

        ushort family = BitConverter.ToUInt16(bytes);
        if (family == AfInet && bytes.Length >= 8)
        {
            return new IPEndPoint(new IPAddress(bytes.Slice(4, 4)), BinaryPrimitives.ReadUInt16BigEndian(bytes[2..]));
        }

        if (family == AfInet6 && bytes.Length >= 28)
        {
            uint scope = BitConverter.ToUInt32(bytes[24..]);
            return new IPEndPoint(new IPAddress(bytes.Slice(8, 16), scope), BinaryPrimitives.ReadUInt16BigEndian(bytes[2..]));
        }

        return null;
    }
}
