using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec;

/// <summary>
/// An <see cref="IBufferWriter{T}"/> over one chunk of a host's output memory at a time (a pipe's, a pooled channel
/// buffer's): frames are written into the chunk at the cost of a bounds check each, and the host hands the chunk on
/// (<see cref="Detach"/>) with one call per chunk instead of one per frame. <see cref="Refill"/> is the host's: it
/// hands on the current chunk and <see cref="Attach"/>es the next. The hosts' output classes derive from it, sealed,
/// so the calls below are direct.
/// </summary>
internal abstract class ChunkWriter : IBufferWriter<byte>
{
    private byte[]? _array;
    private Memory<byte> _memory;
    private int _start;
    private int _capacity;
    private int _written;

    /// <summary>Bytes written into the chunk held and not handed on yet.</summary>
    public int Pending => _written;

    /// <summary>Whether a chunk is held.</summary>
    protected bool HasChunk => _capacity > 0;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public Span<byte> GetSpan(int sizeHint = 0)
    {
        int free = _capacity - _written;
        if (free > 0 && free >= sizeHint)
        {
            return _array is not null ? new Span<byte>(_array, _start + _written, free) : _memory.Span.Slice(_written);
        }

        return Refill(sizeHint).Span;
    }

    public Memory<byte> GetMemory(int sizeHint = 0)
    {
        int free = _capacity - _written;
        return free > 0 && free >= sizeHint ? _memory.Slice(_written) : Refill(sizeHint);
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

    /// <summary>Frames up to this long (header included) are always written contiguously: every host's chunk holds
    /// one (Kestrel's smallest pool block is 4 KiB).</summary>
    private const int ContiguousFrame = 4096;

    /// <summary>Writes one data frame straight into the chunk (the longest header plus the payload fits whatever the
    /// header's form), checking it against the order of the frames before it; the order advances once it is
    /// written. A frame longer than <see cref="ContiguousFrame"/> that does not fit the chunk held is written in
    /// pieces across the host's chunks, so no host has to find one contiguous buffer for it (a pipe of 4 KiB blocks
    /// would rent a pooled array per frame).</summary>
    /// <exception cref="InvalidOperationException">The frame is out of fragment order (nothing is written).</exception>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WriteFrame(
        FrameEncoder encoder, ref OutboundFragmentOrder order, WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin, int rsv = 0)
    {
        OutboundFragmentOrder next = order;
        next.Next(opcode, fin);
        int whole = payload.Length + FrameHeaderReader.MaxHeaderLength;
        if (whole <= ContiguousFrame || whole <= _capacity - _written)
        {
            Advance(encoder.Write(GetSpan(whole), opcode, payload, fin, rsv));
        }
        else
        {
            WriteInPieces(encoder, opcode, payload, fin, rsv);
        }

        order = next;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteInPieces(FrameEncoder encoder, WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin, int rsv)
    {
        Advance(encoder.WriteHeader(GetSpan(FrameHeaderReader.MaxHeaderLength), opcode, payload.Length, out int maskKey, fin, rsv));
        bool masks = encoder.MasksFrames;
        int offset = 0;
        while (!payload.IsEmpty)
        {
            Span<byte> span = GetSpan(1); // the rest of the chunk held, or the host's next chunk
            int count = Math.Min(span.Length, payload.Length);
            if (masks)
            {
                offset = WebSocketMask.Apply(payload[..count], span, maskKey, offset); // the key's phase goes on
            }
            else
            {
                payload[..count].CopyTo(span);
            }

            Advance(count);
            payload = payload[count..];
        }
    }

    /// <summary>Hands on the current chunk (if any) and attaches a new one of at least <paramref name="sizeHint"/>
    /// bytes.</summary>
    /// <returns>The new chunk's memory.</returns>
    protected abstract Memory<byte> Refill(int sizeHint);

    /// <summary>Starts writing into <paramref name="memory"/>.</summary>
    /// <returns><paramref name="memory"/>.</returns>
    protected Memory<byte> Attach(Memory<byte> memory)
    {
        _memory = memory;
        _capacity = memory.Length;
        _written = 0;
        if (MemoryMarshal.TryGetArray((ReadOnlyMemory<byte>)memory, out ArraySegment<byte> segment))
        {
            _array = segment.Array;
            _start = segment.Offset;
        }
        else
        {
            _array = null;
            _start = 0;
        }

        return memory;
    }

    /// <summary>Lets go of the current chunk.</summary>
    /// <returns>How many bytes were written into it.</returns>
    protected int Detach()
    {
        int written = _written;
        _array = null;
        _memory = default;
        _capacity = _written = _start = 0;
        return written;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowAdvancedTooFar() =>
        throw new ArgumentOutOfRangeException("count", "Advanced past the end of the buffer.");
}
