namespace WebSocketCodec.Lean.Loop;

/// <summary>
/// The output chunks of one loop's connections, reused: a loop writes every connection's output at the end of its
/// iteration, so as many chunks are out at once as connections had something to send, far more than the shared
/// array pool keeps per core (it then allocates). Up to <see cref="MaxRetained"/> free chunks are kept; past that a
/// returned chunk is left to the GC. Any thread (a connection's writer may be off the loop); a short lock.
/// </summary>
internal sealed class ChunkPool
{
    /// <summary>The size of every chunk: 16 KiB.</summary>
    public const int ChunkSize = 16 * 1024;

    /// <summary>Free chunks kept at most (4 MiB).</summary>
    public const int MaxRetained = 256;

    private readonly byte[][] _free = new byte[MaxRetained][];
    private int _count;
    private int _outstanding;
    private int _leastFree; // the fewest free chunks since the last trim: that many were not needed meanwhile

    /// <summary>Chunks rented and not returned (a chunk left to the GC past <see cref="MaxRetained"/> counts as
    /// returned).</summary>
    public int Outstanding => Volatile.Read(ref _outstanding);

    /// <summary>Free chunks held now.</summary>
    public int Retained => Volatile.Read(ref _count);

    public byte[] Rent()
    {
        lock (_free)
        {
            _outstanding++;
            if (_count > 0)
            {
                byte[] chunk = _free[--_count];
                _free[_count] = null!;
                _leastFree = Math.Min(_leastFree, _count);
                return chunk;
            }
        }

        return GC.AllocateUninitializedArray<byte>(ChunkSize);
    }

    /// <summary>Lets go of the free chunks no rent needed since the last trim (the loop calls it every few seconds),
    /// so a burst's chunks do not stay with a server that went quiet.</summary>
    /// <returns>How many were let go.</returns>
    public int Trim()
    {
        lock (_free)
        {
            int unused = Math.Min(_leastFree, _count);
            for (int i = 0; i < unused; i++)
            {
                _free[--_count] = null!;
            }

            _leastFree = _count;
            return unused;
        }
    }

    /// <summary>A rented chunk that will not come back (left to the GC): no longer outstanding.</summary>
    public void Forget()
    {
        lock (_free)
        {
            _outstanding--;
        }
    }

    public void Return(byte[] chunk)
    {
        if (chunk.Length != ChunkSize)
        {
            return;
        }

        lock (_free)
        {
            _outstanding--;
            if (_count < MaxRetained)
            {
                _free[_count++] = chunk;
            }
        }
    }
}
