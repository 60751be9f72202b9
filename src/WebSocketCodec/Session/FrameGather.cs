using System.Buffers;

namespace WebSocketCodec;

/// <summary>
/// Gathers the payload of one frame that arrives across reads, in pooled segments of at most
/// <see cref="SegmentLength"/> bytes rented as the bytes arrive: memory follows the bytes received, never the length
/// the header announced. A frame of one segment is handed over in place; a longer one is joined into one buffer of its
/// length when its last byte is in. Not thread-safe.
/// </summary>
internal sealed class FrameGather(ArrayPool<byte> pool)
{
    /// <summary>The most a segment holds (and so the most rented ahead of the bytes received).</summary>
    public const int SegmentLength = 64 * 1024;

    private readonly List<byte[]> _segments = new(1);
    private byte[]? _joined;
    private long _expected;
    private long _filled;
    private int _lastFill;

    /// <summary>Whether a frame is being gathered.</summary>
    public bool IsActive { get; private set; }

    /// <summary>Bytes gathered so far.</summary>
    public long Filled => _filled;

    /// <summary>Bytes rented for the frame so far (for tests: at most <see cref="Filled"/> plus one segment).</summary>
    public long Rented
    {
        get
        {
            long total = _joined?.Length ?? 0;
            foreach (byte[] segment in _segments)
            {
                total += segment.Length;
            }

            return total;
        }
    }

    /// <summary>Starts a frame of <paramref name="length"/> payload bytes; nothing is rented yet.</summary>
    public void Start(long length)
    {
        IsActive = true;
        _expected = length;
        _filled = 0;
        _lastFill = 0;
    }

    /// <summary>Adds the next payload bytes (unmasked already).</summary>
    public void Append(ReadOnlySpan<byte> chunk)
    {
        while (!chunk.IsEmpty)
        {
            byte[]? last = _segments.Count > 0 ? _segments[^1] : null;
            int room = last is null ? 0 : SegmentRoom(last);
            if (room == 0)
            {
                int size = (int)Math.Min(SegmentLength, _expected - _filled);
                last = pool.Rent(Math.Max(1, size));
                _segments.Add(last);
                _lastFill = 0;
                room = SegmentRoom(last);
            }

            int take = Math.Min(room, chunk.Length);
            chunk.Slice(0, take).CopyTo(last.AsSpan(_lastFill));
            _lastFill += take;
            _filled += take;
            chunk = chunk.Slice(take);
        }
    }

    /// <summary>The whole payload, once every byte is in; valid until <see cref="Release"/>.</summary>
    public Span<byte> Complete()
    {
        if (_segments.Count == 0)
        {
            return Span<byte>.Empty;
        }

        if (_segments.Count == 1)
        {
            return _segments[0].AsSpan(0, (int)_filled);
        }

        byte[] joined = pool.Rent((int)_filled);
        int offset = 0;
        for (int i = 0; i < _segments.Count; i++)
        {
            int length = i == _segments.Count - 1 ? _lastFill : SegmentLength;
            _segments[i].AsSpan(0, length).CopyTo(joined.AsSpan(offset));
            offset += length;
            pool.Return(_segments[i]);
        }

        _segments.Clear();
        _joined = joined;
        return joined.AsSpan(0, offset);
    }

    /// <summary>Returns every buffer to the pool and forgets the frame.</summary>
    public void Release()
    {
        foreach (byte[] segment in _segments)
        {
            pool.Return(segment);
        }

        _segments.Clear();
        if (_joined is not null)
        {
            pool.Return(_joined);
            _joined = null;
        }

        IsActive = false;
        _filled = 0;
    }

    // A segment is used up to SegmentLength even when the pool handed out a longer array, so joining knows each
    // segment's length.
    private int SegmentRoom(byte[] segment) => Math.Min(segment.Length, SegmentLength) - _lastFill;
}
