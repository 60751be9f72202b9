using System.Buffers;
using System.Numerics;

namespace WebSocketCodec;

/// <summary>
/// Gathers the payload of one frame that arrives across reads, in pooled segments rented as the bytes arrive: the
/// first holds what arrived (4 KiB at least), each next one twice the last, up to <see cref="SegmentLength"/>. Memory
/// follows the bytes received (a peer that trickles a frame holds a few KiB, not a 64 KiB segment), never the length
/// the header announced. A frame of one segment is handed over in place; a longer one is joined into one buffer of its
/// length when its last byte is in. Not thread-safe.
/// </summary>
internal sealed class FrameGather(ArrayPool<byte> pool)
{
    /// <summary>The most a segment holds (and so the most rented ahead of the bytes received).</summary>
    public const int SegmentLength = 64 * 1024;

    /// <summary>The least a segment holds.</summary>
    public const int MinSegmentLength = 4 * 1024;

    private readonly List<(byte[] Array, int Capacity)> _segments = new(1);
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
            foreach ((byte[] array, _) in _segments)
            {
                total += array.Length;
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
            int room = _segments.Count > 0 ? _segments[^1].Capacity - _lastFill : 0;
            if (room == 0)
            {
                int previous = _segments.Count > 0 ? _segments[^1].Capacity : 0;
                int wanted = Math.Max(MinSegmentLength, Math.Max(previous * 2, (int)BitOperations.RoundUpToPowerOf2((uint)Math.Min(chunk.Length, SegmentLength))));
                int capacity = (int)Math.Min(Math.Min(wanted, SegmentLength), _expected - _filled);
                capacity = Math.Max(1, capacity);
                _segments.Add((pool.Rent(capacity), capacity));
                _lastFill = 0;
                room = capacity;
            }

            int take = Math.Min(room, chunk.Length);
            chunk.Slice(0, take).CopyTo(_segments[^1].Array.AsSpan(_lastFill));
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
            return _segments[0].Array.AsSpan(0, (int)_filled);
        }

        byte[] joined = pool.Rent((int)_filled);
        int offset = 0;
        for (int i = 0; i < _segments.Count; i++)
        {
            (byte[] array, int capacity) = _segments[i];
            int length = i == _segments.Count - 1 ? _lastFill : capacity; // every segment but the last is full
            array.AsSpan(0, length).CopyTo(joined.AsSpan(offset));
            offset += length;
            pool.Return(array);
        }

        _segments.Clear();
        _joined = joined;
        return joined.AsSpan(0, offset);
    }

    /// <summary>Returns every buffer to the pool and forgets the frame.</summary>
    public void Release()
    {
        foreach ((byte[] array, _) in _segments)
        {
            pool.Return(array);
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
}
