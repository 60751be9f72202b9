using System.Buffers;
using System.Runtime.InteropServices;

namespace WebSocketCodec.AspNetCore.Tests.Tuning;

/// <summary>The tuning's memory pool on its own: block sizes, reuse, double returns, large requests, disposal, options.</summary>
public sealed class WebSocketMemoryPoolTests
{
    [Fact]
    public void BlocksAreTheConfiguredSizeAndTheLastReturnedIsRentedFirst()
    {
        var factory = new WebSocketMemoryPoolFactory(16 * 1024, TimeSpan.Zero);
        using MemoryPool<byte> pool = factory.Create();
        Assert.Equal(16 * 1024, pool.MaxBufferSize);
        IMemoryOwner<byte> first = pool.Rent(100);
        IMemoryOwner<byte> second = pool.Rent(); // -1: the default size
        Assert.Equal(16 * 1024, first.Memory.Length);
        Assert.Equal(16 * 1024, second.Memory.Length);
        Assert.Equal(2, factory.RentedBlocks);
        Assert.True(MemoryMarshal.TryGetArray<byte>(second.Memory, out ArraySegment<byte> secondArray));
        first.Dispose();
        second.Dispose();
        Assert.Equal(0, factory.RentedBlocks);
        Assert.Equal(2, factory.FreeBlocks);
        using IMemoryOwner<byte> again = pool.Rent(16 * 1024);
        Assert.True(MemoryMarshal.TryGetArray<byte>(again.Memory, out ArraySegment<byte> againArray));
        Assert.Same(secondArray.Array, againArray.Array); // last in, first out: the block still in cache
    }

    [Fact]
    public void ADoubleReturnCountsOnce()
    {
        var factory = new WebSocketMemoryPoolFactory(8 * 1024, TimeSpan.Zero);
        using MemoryPool<byte> pool = factory.Create();
        IMemoryOwner<byte> block = pool.Rent();
        block.Dispose();
        block.Dispose();
        Assert.Equal(0, factory.RentedBlocks);
        Assert.Equal(1, factory.FreeBlocks);
        using IMemoryOwner<byte> a = pool.Rent();
        using IMemoryOwner<byte> b = pool.Rent();
        Assert.False(a.Memory.Span.Overlaps(b.Memory.Span)); // one block was not handed out twice
    }

    [Fact]
    public void ARequestLargerThanABlockGetsAnUnpooledBufferOfItsSize()
    {
        var factory = new WebSocketMemoryPoolFactory(8 * 1024, TimeSpan.Zero);
        using MemoryPool<byte> pool = factory.Create();
        using IMemoryOwner<byte> large = pool.Rent(100_000);
        Assert.True(large.Memory.Length >= 100_000);
        Assert.Equal(0, factory.RentedBlocks);
    }

    [Fact]
    public void DisposingThePoolReleasesItsFreeBlocksAndTheOnesStillRentedWhenTheyComeBack()
    {
        var factory = new WebSocketMemoryPoolFactory(8 * 1024, TimeSpan.Zero);
        MemoryPool<byte> pool = factory.Create();
        IMemoryOwner<byte> kept = pool.Rent();
        pool.Rent().Dispose();
        Assert.Equal(1, factory.FreeBlocks);
        pool.Dispose();
        Assert.Equal(0, factory.FreeBlocks);
        Assert.Equal(1, factory.ReleasedBlocks);
        kept.Dispose();
        Assert.Equal(0, factory.RentedBlocks);
        Assert.Equal(2, factory.ReleasedBlocks);
    }

    [Fact]
    public void TheTrimTimerReleasesBlocksUnusedForAnInterval()
    {
        var time = new ManualTime();
        var factory = new WebSocketMemoryPoolFactory(8 * 1024, TimeSpan.FromSeconds(10), time);
        using MemoryPool<byte> pool = factory.Create();
        IMemoryOwner<byte>[] burst = [.. Enumerable.Range(0, 5).Select(_ => pool.Rent())];
        foreach (IMemoryOwner<byte> block in burst)
        {
            block.Dispose();
        }

        time.Fire(); // marks: all five were needed in this interval
        Assert.Equal(5, factory.FreeBlocks);
        pool.Rent().Dispose(); // one is still in use now and then
        time.Fire();
        Assert.Equal(1, factory.FreeBlocks);
        Assert.Equal(4, factory.ReleasedBlocks);
    }

    [Theory]
    [InlineData(4 * 1024 - 1)]
    [InlineData(1024 * 1024 + 1)]
    public void BlockSizesOutsideTheRangeAreRefused(int size)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new WebSocketMemoryPoolFactory(size, TimeSpan.Zero));
        var services = new Microsoft.Extensions.DependencyInjection.ServiceCollection();
        Assert.Throws<ArgumentOutOfRangeException>(() => services.AddKestrelWebSocketTuning(tuning => tuning.BlockSize = size));
    }

    /// <summary>A clock whose one timer fires when the test says.</summary>
    private sealed class ManualTime : TimeProvider
    {
        private TimerCallback? _callback;
        private object? _state;

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            _callback = callback;
            _state = state;
            return new NoTimer();
        }

        public void Fire() => _callback!(_state);

        private sealed class NoTimer : ITimer
        {
            public bool Change(TimeSpan dueTime, TimeSpan period) => true;

            public void Dispose()
            {
            }

            public ValueTask DisposeAsync() => ValueTask.CompletedTask;
        }
    }
}
