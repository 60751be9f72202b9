using DotNetty.Buffers;
using DotNetty.Common.Concurrency;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Which allocator a buffer may come from on the current thread. SpanNetty's <see cref="PooledByteBufferAllocator"/>
/// gives each thread a cache, and frees the cache from its ThreadDeathWatcher once the thread's <see cref="XThread"/>
/// is not alive. Only SpanNetty's own threads (its event loops) have a live one: for any other thread (a thread-pool
/// thread going on with an SslStream, an application thread preparing a frame) the cache is freed about a second after
/// its first allocation while the thread goes on using it, two consumers on a queue built for one. The thread can then
/// spin forever in the cache's queue, or a memory region be handed out twice. Off SpanNetty's threads our buffers come
/// from SpanNetty's <see cref="ArrayPooledByteBufferAllocator"/> instead (arrays from the shared ArrayPool, buffer
/// objects recycled, leak-tracked as the pooled ones).
/// </summary>
internal static class ThreadSafeAllocation
{
    /// <summary><paramref name="allocator"/>, or the array-pool allocator when it is SpanNetty's pooled one and the
    /// current thread is not one of SpanNetty's.</summary>
    public static IByteBufferAllocator For(IByteBufferAllocator allocator) =>
        allocator is PooledByteBufferAllocator && !XThread.CurrentThread.IsAlive ? ArrayPooledByteBufferAllocator.Default : allocator;
}
