using System.Buffers;
using System.Collections.Concurrent;

namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>
/// A memory pool that reuses its blocks and their owner objects, like Kestrel's block pool (the default
/// <see cref="MemoryPool{T}.Shared"/> allocates an owner per rent), so allocation tests measure our code only.
/// </summary>
public sealed class BlockPool : MemoryPool<byte>
{
    private const int BlockSize = 4096;
    private readonly ConcurrentQueue<Block> _free = new();

    /// <summary>Creates the pool with <paramref name="preallocate"/> blocks ready, so it need not grow while measured.</summary>
    public BlockPool(int preallocate = 0)
    {
        for (int i = 0; i < preallocate; i++)
        {
            _free.Enqueue(new Block(this));
        }
    }

    public override int MaxBufferSize => BlockSize;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, BlockSize);

        return _free.TryDequeue(out Block? block) ? block : new Block(this);
    }

    protected override void Dispose(bool disposing)
    {
    }

    private sealed class Block(BlockPool pool) : IMemoryOwner<byte>
    {
        private readonly byte[] _array = GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true);

        public Memory<byte> Memory => _array;

        public void Dispose() => pool._free.Enqueue(this);
    }
}
