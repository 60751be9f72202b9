using System.Buffers.Binary;
using System.Security.Cryptography;

namespace WebSocketCodec;

/// <summary>
/// Mask keys from a cryptographically strong source (RFC 6455 §10.3 requires keys a peer cannot predict), drawn from a
/// buffer that <see cref="RandomNumberGenerator"/> refills every 64 keys, so a frame costs no system call.
/// One per connection: not thread-safe.
/// </summary>
public sealed class MaskKeyGenerator
{
    private const int BufferSize = 256;
    private readonly byte[] _buffer = new byte[BufferSize];
    private int _position = BufferSize;

    /// <summary>The next mask key: four unpredictable bytes in wire order as a little-endian integer.</summary>
    public int Next()
    {
        int position = _position;
        if (position >= BufferSize)
        {
            RandomNumberGenerator.Fill(_buffer);
            position = 0;
        }

        _position = position + 4;
        return BinaryPrimitives.ReadInt32LittleEndian(_buffer.AsSpan(position));
    }
}
