using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// Gathers many small writes into the chunk of pipe memory it holds, and commits them to the <see cref="PipeWriter"/>
/// with one <c>Advance</c>. A <see cref="Pipe"/>'s <c>Advance</c> takes a lock (two interlocked operations, a large
/// share of the server's time when every echoed frame made its own), so frames cost a bounds check each and
/// the lock is taken once per chunk. Used under the channel's write lock only; <see cref="Commit"/> runs before every
/// flush and before the output is completed.
/// </summary>
internal sealed class CoalescingWriter(PipeWriter inner) : IBufferWriter<byte>
{
    private byte[]? _array;
    private Memory<byte> _memory;
    private int _start;
    private int _capacity;
    private int _written;
    private long _committed;

    /// <summary>The pipe this writes to.</summary>
    public PipeWriter Inner => inner;

    /// <summary>Bytes committed to the pipe so far, in all.</summary>
    public long Committed => _committed;

    /// <summary>Bytes written into the chunk held and not committed yet.</summary>
    public int Pending => _written;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        int free = _capacity - _written;
        if (free > 0 && free >= sizeHint)
        {
            return _array is not null
                ? new Span<byte>(_array, _start + _written, free)
                : _memory.Span.Slice(_written);
        }

        return Renew(sizeHint).Span;
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        int free = _capacity - _written;
        return free > 0 && free >= sizeHint ? _memory.Slice(_written) : Renew(sizeHint);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Advance(int count)
    {
        if ((uint)count > (uint)(_capacity - _written))
        {
            ThrowAdvancedTooFar();
        }

        _written += count;
    }

    /// <summary>Commits what was written to the pipe (before a flush, and before the output completes).</summary>
    public void Commit()
    {
        if (_written > 0)
        {
            inner.Advance(_written);
            _committed += _written;
        }

        _array = null;
        _memory = default;
        _capacity = _written = _start = 0;
    }

    private Memory<byte> Renew(int sizeHint)
    {
        Commit();
        _memory = inner.GetMemory(sizeHint);
        _capacity = _memory.Length;
        if (MemoryMarshal.TryGetArray((ReadOnlyMemory<byte>)_memory, out ArraySegment<byte> segment))
        {
            _array = segment.Array;
            _start = segment.Offset;
        }

        return _memory;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowAdvancedTooFar() =>
        throw new ArgumentOutOfRangeException("count", "Advanced past the end of the buffer.");
}
