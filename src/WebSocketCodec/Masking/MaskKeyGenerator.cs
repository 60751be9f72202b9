using System.Buffers.Binary;
using System.Security.Cryptography;

namespace WebSocketCodec;

/// <summary>Mask keys from a cryptographically strong source (RFC 6455 §10.3 requires keys a peer cannot predict): a
/// client's <see cref="FrameEncoder"/> uses the calling thread's own (<see cref="ForCurrentThread"/>) unless it is
/// handed one, so create one only to give an encoder or a session a source of its own.</summary>
/// <remarks>Keys are drawn from a buffer that <see cref="RandomNumberGenerator"/> refills when it runs out, so a frame
/// costs no system call. An instance is not thread-safe; <see cref="ForCurrentThread"/> gives each thread its
/// own.</remarks>
public sealed class MaskKeyGenerator
{
    /// <summary>The buffer size of the per-thread generators: one refill per 1024 keys.</summary>
    public const int ThreadBufferSize = 4096;

    [ThreadStatic]
    private static MaskKeyGenerator? s_forCurrentThread;

    private readonly byte[] _buffer;
    private int _position;

    /// <summary>Creates a generator that refills every <paramref name="bufferSize"/> / 4 keys.</summary>
    /// <param name="bufferSize">Bytes of randomness fetched at a time: a multiple of 4, at least 4.</param>
    public MaskKeyGenerator(int bufferSize = 256)
    {
        if (bufferSize < 4 || bufferSize % 4 != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(bufferSize), bufferSize, "A positive multiple of 4 is required.");
        }

        _buffer = new byte[bufferSize];
        _position = bufferSize;
    }

    /// <summary>The calling thread's own generator, created on first use.</summary>
    public static MaskKeyGenerator ForCurrentThread => s_forCurrentThread ??= new MaskKeyGenerator(ThreadBufferSize);

    /// <summary>The next mask key: four unpredictable bytes in wire order as a little-endian integer.</summary>
    public int Next()
    {
        int position = _position;
        if (position >= _buffer.Length)
        {
            RandomNumberGenerator.Fill(_buffer);
            position = 0;
        }

        _position = position + 4;
        return BinaryPrimitives.ReadInt32LittleEndian(_buffer.AsSpan(position));
    }
}
