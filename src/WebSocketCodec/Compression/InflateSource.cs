using System.Buffers;

namespace WebSocketCodec;

/// <summary>The stream an inflater reads from: one fragment's compressed bytes (copied into a pooled buffer, kept
/// between fragments) and, at the end of a message, the tail. It returns 0 when they are used up; the inflater then
/// waits for the next fragment.</summary>
internal sealed class InflateSource(ArrayPool<byte> pool) : OneWayStream
{
    private byte[] _buffer = [];
    private int _start;
    private int _end;

    /// <summary>Makes <paramref name="bytes"/> then <paramref name="tail"/> the next to read.</summary>
    public void Load(ReadOnlySpan<byte> bytes, ReadOnlySpan<byte> tail)
    {
        int length = bytes.Length + tail.Length;
        if (_buffer.Length < length)
        {
            Release();
            _buffer = pool.Rent(length);
        }

        bytes.CopyTo(_buffer);
        tail.CopyTo(_buffer.AsSpan(bytes.Length));
        _start = 0;
        _end = length;
    }

    /// <summary>Forgets what was not read.</summary>
    public void Clear() => _start = _end = 0;

    /// <summary>Returns the buffer to the pool.</summary>
    public void Release()
    {
        if (_buffer.Length > 0)
        {
            pool.Return(_buffer);
            _buffer = [];
        }

        Clear();
    }

    public override int Read(Span<byte> buffer)
    {
        int count = Math.Min(buffer.Length, _end - _start);
        _buffer.AsSpan(_start, count).CopyTo(buffer);
        _start += count;
        return count;
    }

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override bool CanRead => true;

    public override bool CanWrite => false;

    public override void Write(byte[] buffer, int offset, int count) => throw new NotSupportedException();
}
