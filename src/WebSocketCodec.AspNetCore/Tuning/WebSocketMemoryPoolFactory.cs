using System.Buffers;
using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Connections;

namespace WebSocketCodec.AspNetCore;

/// <summary>Kestrel's memory pools in large pinned blocks (see <see cref="KestrelWebSocketTuning.BlockSize"/>),
/// registered by <see cref="KestrelTuningExtensions.AddKestrelWebSocketTuning"/>: resolve it from the services to read
/// its block counts (<see cref="RentedBlocks"/>, <see cref="FreeBlocks"/>) or to <see cref="Trim"/> free blocks.
/// Kestrel creates one pool per I/O queue from it. Its counts are also published under the <c>WebSocketCodec</c> meter
/// as <c>websocketcodec.kestrel.memory_pool.blocks</c> (tagged <c>state</c> rented or free).</summary>
public sealed class WebSocketMemoryPoolFactory : IMemoryPoolFactory<byte>
{
    private static readonly Meter Meter = new(WebSocketTelemetry.Name);
    private static readonly List<WeakReference<WebSocketMemoryPoolFactory>> Live = [];

    private readonly TimeProvider _time;
    private readonly List<LargeBlockMemoryPool> _pools = [];
    private long _rented;
    private long _released;

    static WebSocketMemoryPoolFactory()
    {
        Meter.CreateObservableUpDownCounter(
            "websocketcodec.kestrel.memory_pool.blocks", ObserveBlocks, "{block}",
            "Blocks of the Kestrel memory pools of WebSocketCodec's tuning: rented (holding bytes in flight) or free (kept for reuse).");
    }

    /// <summary>A factory of pools with <paramref name="blockSize"/>-byte blocks; free blocks unused for a whole
    /// <paramref name="trimInterval"/> are released (never, when zero).</summary>
    /// <param name="blockSize">Bytes per block, 4 KiB to 1 MiB.</param>
    /// <param name="trimInterval">How long a free block may stay unused before it is released.</param>
    /// <param name="time">The clock of the trim timer (the system's when null).</param>
    public WebSocketMemoryPoolFactory(int blockSize, TimeSpan trimInterval, TimeProvider? time = null)
    {
        KestrelWebSocketTuning.ValidateBlockSize(blockSize);
        ArgumentOutOfRangeException.ThrowIfLessThan(trimInterval, TimeSpan.Zero);
        BlockSize = blockSize;
        TrimInterval = trimInterval;
        _time = time ?? TimeProvider.System;
        lock (Live)
        {
            Live.RemoveAll(reference => !reference.TryGetTarget(out _));
            Live.Add(new WeakReference<WebSocketMemoryPoolFactory>(this));
        }
    }

    /// <summary>Bytes per block: also the largest contiguous buffer a pipe of these pools hands out.</summary>
    public int BlockSize { get; }

    /// <summary>How long a free block may stay unused before it is released.</summary>
    public TimeSpan TrimInterval { get; }

    /// <summary>Blocks rented and not yet returned, over every pool of this factory.</summary>
    public long RentedBlocks => Interlocked.Read(ref _rented);

    /// <summary>Free blocks kept for reuse, over every live pool of this factory.</summary>
    public long FreeBlocks
    {
        get
        {
            lock (_pools)
            {
                return _pools.Sum(pool => (long)pool.FreeBlocks);
            }
        }
    }

    /// <summary>Blocks released to the garbage collector so far (trimmed, or freed with their pool).</summary>
    public long ReleasedBlocks => Interlocked.Read(ref _released);

    /// <inheritdoc />
    public MemoryPool<byte> Create(MemoryPoolOptions? options = null)
    {
        var pool = new LargeBlockMemoryPool(this, BlockSize, TrimInterval, _time);
        lock (_pools)
        {
            _pools.Add(pool);
        }

        return pool;
    }

    /// <summary>Releases, in every pool, the free blocks that no rent needed since the last trim (the trim timer does
    /// this every <see cref="TrimInterval"/>); returns how many.</summary>
    public int Trim()
    {
        LargeBlockMemoryPool[] pools;
        lock (_pools)
        {
            pools = [.. _pools];
        }

        return pools.Sum(pool => pool.Trim());
    }

    internal void OnRented() => Interlocked.Increment(ref _rented);

    internal void OnReturned() => Interlocked.Decrement(ref _rented);

    internal void OnReleased(int blocks) => Interlocked.Add(ref _released, blocks);

    internal void OnPoolDisposed(LargeBlockMemoryPool pool)
    {
        lock (_pools)
        {
            _pools.Remove(pool);
        }
    }

    private static IEnumerable<Measurement<long>> ObserveBlocks()
    {
        long rented = 0, free = 0;
        lock (Live)
        {
            foreach (WeakReference<WebSocketMemoryPoolFactory> reference in Live)
            {
                if (reference.TryGetTarget(out WebSocketMemoryPoolFactory? factory))
                {
                    rented += factory.RentedBlocks;
                    free += factory.FreeBlocks;
                }
            }
        }

        return
        [
            new Measurement<long>(rented, new KeyValuePair<string, object?>("state", "rented")),
            new Measurement<long>(free, new KeyValuePair<string, object?>("state", "free")),
        ];
    }
}
