using System.Buffers;

namespace WebSocketCodec;

/// <summary>
/// Where frames go while a flush is under way: pooled chunks, in order, that the flusher moves into the transport
/// behind the bytes it is flushing. Made on first use; appends happen under the driver's output lock, and
/// <see cref="TakeSealed"/> hands the flusher what was appended so far while later appends go on into new chunks.
/// </summary>
internal sealed class SideBuffer(ArrayPool<byte> pool) : ChunkWriter
{
    private const int FirstChunk = 4096;
    private const int LargestChunk = 64 * 1024;

    private Queue<Chunk> _sealed = new();
    private Queue<Chunk>? _spare;
    private byte[]? _current;
    private long _sealedTotal;
    private long _takenTotal;

    /// <summary>Bytes appended here so far, in all (a running total).</summary>
    public long Appended => _sealedTotal + Pending;

    /// <summary>Seals the chunk being written and takes every sealed chunk, in order (under the output lock). Give
    /// the queue back with <see cref="Recycle"/> once its bytes were copied.</summary>
    /// <returns>The chunks, and their bytes in all.</returns>
    public (Queue<Chunk> Chunks, long Bytes) TakeSealed()
    {
        Seal();
        Queue<Chunk> taken = _sealed;
        long bytes = 0;
        foreach (Chunk chunk in taken)
        {
            bytes += chunk.Length;
        }

        _sealed = Interlocked.Exchange(ref _spare, null) ?? new Queue<Chunk>();
        _takenTotal = _sealedTotal;
        return (taken, bytes);
    }

    /// <summary>Returns the chunks of a taken queue to the pool and keeps the queue for the next take.</summary>
    /// <param name="chunks">A queue <see cref="TakeSealed"/> gave.</param>
    public void Recycle(Queue<Chunk> chunks)
    {
        while (chunks.TryDequeue(out Chunk chunk))
        {
            pool.Return(chunk.Array);
        }

        Volatile.Write(ref _spare, chunks);
    }

    /// <summary>Returns every chunk to the pool (the output ended; under the output lock).</summary>
    public void Release()
    {
        Seal();
        Recycle(_sealed);
        _sealed = new Queue<Chunk>();
    }

    /// <summary>Chunks grow with the bytes waiting (4 KiB, then up to 64 KiB): a long burst behind a slow flush rents
    /// a few large arrays, not many small ones that the pool's per-core caches cannot all hold.</summary>
    protected override Memory<byte> Refill(int sizeHint)
    {
        Seal();
        int size = (int)Math.Clamp(Pending + _sealedTotal - _takenTotal, FirstChunk, LargestChunk);
        _current = pool.Rent(Math.Max(sizeHint, size));
        return Attach(_current);
    }

    private void Seal()
    {
        byte[]? current = _current;
        if (current is null)
        {
            return;
        }

        _current = null;
        int written = Detach();
        if (written == 0)
        {
            pool.Return(current);
            return;
        }

        _sealed.Enqueue(new Chunk(current, written));
        _sealedTotal += written;
    }

    /// <summary>One sealed chunk: a pooled array and the bytes written at its start.</summary>
    internal readonly record struct Chunk(byte[] Array, int Length);
}
