using System.Buffers;

namespace WebSocketCodec;

/// <summary>Where a session inflates one frame of a compressed message before handing it on: one pooled array, grown by
/// renting a larger one, kept between frames up to <see cref="KeptLength"/> and returned beyond (so a websocket that
/// once got a large message does not hold its memory).</summary>
internal sealed class InflateBuffer(ArrayPool<byte> pool) : IBufferWriter<byte>
{
    private const int KeptLength = 64 * 1024;
    private byte[] _array = [];
    private int _written;

    /// <summary>The bytes written since the last <see cref="Reset"/>.</summary>
    public Span<byte> Written => _array.AsSpan(0, _written);

    public void Advance(int count) => _written += count;

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _array.AsMemory(_written);
    }

    public Span<byte> GetSpan(int sizeHint = 0)
    {
        Ensure(sizeHint);
        return _array.AsSpan(_written);
    }

    /// <summary>Forgets what was written (after the frame was handed on).</summary>
    public void Reset()
    {
        _written = 0;
        if (_array.Length > KeptLength)
        {
            Release();
        }
    }

    /// <summary>Returns the array to the pool.</summary>
    public void Release()
    {
        if (_array.Length > 0)
        {
            pool.Return(_array);
            _array = [];
        }

        _written = 0;
    }

    private void Ensure(int sizeHint)
    {
        int needed = _written + Math.Max(sizeHint, 1);
        if (needed <= _array.Length)
        {
            return;
        }

        byte[] larger = pool.Rent(Math.Max(needed, Math.Max(4096, _array.Length * 2)));
        _array.AsSpan(0, _written).CopyTo(larger);
        if (_array.Length > 0)
        {
            pool.Return(_array);
        }

        _array = larger;
    }
}
