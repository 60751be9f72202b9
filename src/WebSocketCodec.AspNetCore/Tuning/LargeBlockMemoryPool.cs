using System.Buffers;
using System.Runtime.InteropServices;

namespace WebSocketCodec.AspNetCore;

/// <summary>
/// Kestrel's buffers in blocks of one size larger than its own 4 KiB: a socket read fills a whole block (one
/// <c>recv</c> per block where the default pool needs one per 4 KiB), and a frame up to the block's size is written
/// contiguously. Blocks are pinned (the pinned object heap: sockets pin them anyway) and reused last-in first-out, so the
/// block just returned, still in cache, serves the next read. Kestrel rents a block only when data is there (it waits
/// for data before it rents, by default) and returns it once the bytes are consumed, so an idle websocket holds none.
/// Blocks that stayed free for a whole trim interval are released to the garbage collector: the pool shrinks back after
/// a burst.
/// </summary>
internal sealed class LargeBlockMemoryPool : MemoryPool<byte>
{
    private readonly WebSocketMemoryPoolFactory _owner;
    private readonly int _blockSize;
    private readonly Lock _gate = new();
    private readonly ITimer? _trim;
    private Block[] _free = new Block[16];
    private int _freeCount;
    private int _lowestFreeSinceTrim;
    private bool _disposed;

    public LargeBlockMemoryPool(WebSocketMemoryPoolFactory owner, int blockSize, TimeSpan trimInterval, TimeProvider time)
    {
        _owner = owner;
        _blockSize = blockSize;
        if (trimInterval > TimeSpan.Zero)
        {
            // The timer holds the pool weakly: a pool nobody disposes is still collected.
            _trim = time.CreateTimer(static state => (((WeakReference<LargeBlockMemoryPool>)state!).TryGetTarget(out LargeBlockMemoryPool? pool) ? pool : null)?.Trim(),
                new WeakReference<LargeBlockMemoryPool>(this), trimInterval, trimInterval);
        }
    }

    public override int MaxBufferSize => _blockSize;

    /// <summary>Free blocks held for reuse.</summary>
    public int FreeBlocks => Volatile.Read(ref _freeCount);

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        if (minBufferSize > _blockSize)
        {
            // Pipes never ask for more than MaxBufferSize; anyone else who does gets an unpooled array.
            return new Unpooled(minBufferSize);
        }

        Block? block = null;
        lock (_gate)
        {
            if (_freeCount > 0)
            {
                block = _free[--_freeCount];
                _free[_freeCount] = null!;
                if (_freeCount < _lowestFreeSinceTrim)
                {
                    _lowestFreeSinceTrim = _freeCount;
                }
            }
        }

        block ??= new Block(this, _blockSize);
        block.OnRented();
        _owner.OnRented();
        return block;
    }

    /// <summary>Releases the blocks that no rent needed since the last trim (the oldest, at the bottom of the stack).</summary>
    public int Trim()
    {
        int released;
        lock (_gate)
        {
            released = _lowestFreeSinceTrim;
            if (released > 0)
            {
                Array.Copy(_free, released, _free, 0, _freeCount - released);
                Array.Clear(_free, _freeCount - released, released);
                _freeCount -= released;
            }

            _lowestFreeSinceTrim = _freeCount;
        }

        _owner.OnReleased(released);
        return released;
    }

    private void Return(Block block)
    {
        _owner.OnReturned();
        lock (_gate)
        {
            if (_disposed)
            {
                _owner.OnReleased(1);
                return;
            }

            if (_freeCount == _free.Length)
            {
                Array.Resize(ref _free, _free.Length * 2);
            }

            _free[_freeCount++] = block;
        }
    }

    protected override void Dispose(bool disposing)
    {
        int released;
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            released = _freeCount;
            Array.Clear(_free);
            _freeCount = 0;
            _lowestFreeSinceTrim = 0;
        }

        _trim?.Dispose();
        _owner.OnReleased(released);
        _owner.OnPoolDisposed(this);
    }

    /// <summary>One pinned block; disposing it returns it to its pool once (a second dispose does nothing).</summary>
    private sealed class Block(LargeBlockMemoryPool pool, int size) : IMemoryOwner<byte>
    {
        private readonly byte[] _array = GC.AllocateUninitializedArray<byte>(size, pinned: true);
        private int _rented;

        public Memory<byte> Memory => MemoryMarshal.CreateFromPinnedArray(_array, 0, _array.Length);

        public void OnRented() => Volatile.Write(ref _rented, 1);

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _rented, 0) == 1)
            {
                pool.Return(this);
            }
        }
    }

    /// <summary>A request larger than the blocks: a plain array the garbage collector reclaims.</summary>
    private sealed class Unpooled(int size) : IMemoryOwner<byte>
    {
        public Memory<byte> Memory { get; private set; } = new byte[size];

        public void Dispose() => Memory = default;
    }
}
