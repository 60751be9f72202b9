using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;

namespace WebSocketCodec.SpanNetty.Tests.Buffers;

/// <summary>Off SpanNetty's own threads our buffers do not come from its pooled allocator, whose per-thread cache its
/// ThreadDeathWatcher frees while such a thread still uses it.</summary>
public sealed class ThreadSafeAllocationTests : LeakCheckedTests
{
    [Fact]
    public async Task OnlySpanNettysOwnThreadsLookAliveToItsDeathWatcher()
    {
        // What ThreadSafeAllocation keys on: if a SpanNetty release made other threads look alive, this fails and the
        // array-pool detour could go.
        bool poolThread = await Task.Run(() => XThread.CurrentThread.IsAlive);
        bool eventLoop = await OnLoopAsync(() => XThread.CurrentThread.IsAlive);
        Assert.False(poolThread);
        Assert.True(eventLoop);
    }

    [Fact]
    public async Task OffTheEventLoopsBuffersComeFromTheArrayPoolAndOnThemFromTheChannelsAllocator()
    {
        var pooled = PooledByteBufferAllocator.Default;
        IByteBufferAllocator offLoop = await Task.Run(() => ThreadSafeAllocation.For(pooled));
        IByteBufferAllocator onLoop = await OnLoopAsync(() => ThreadSafeAllocation.For(pooled));
        IByteBufferAllocator unpooled = await Task.Run(() => ThreadSafeAllocation.For(UnpooledByteBufferAllocator.Default));
        Assert.IsType<ArrayPooledByteBufferAllocator>(offLoop);
        Assert.Same(pooled, onLoop);
        Assert.Same(UnpooledByteBufferAllocator.Default, unpooled); // only SpanNetty's pooled allocator is avoided

        IByteBuffer buffer = await Task.Run(() => offLoop.Buffer(100));
        try
        {
            Assert.Same(offLoop, buffer.Allocator);
            buffer.WriteBytes(new byte[100]);
            Assert.Equal(100, buffer.ReadableBytes);
        }
        finally
        {
            buffer.Release(); // leak-tracked like the pooled buffers: not releasing it fails this test
        }
    }

    [Fact]
    public void TheTestsRunWithoutPerThreadCaches()
    {
        // LeakDetection's module initializer turns them off, so a test allocating on its own thread cannot hang.
        var metric = (PooledByteBufferAllocatorMetric)PooledByteBufferAllocator.Default.Metric;
        Assert.Equal((0, 0, 0), (metric.TinyCacheSize, metric.SmallCacheSize, metric.NormalCacheSize));
    }

    private static Task<T> OnLoopAsync<T>(Func<T> action)
    {
        IEventLoop loop = CallbacksServer.Loops.GetNext();
        return loop.SubmitAsync(action);
    }
}
