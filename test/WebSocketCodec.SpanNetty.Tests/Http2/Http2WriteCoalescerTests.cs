using DotNetty.Buffers;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// <see cref="Http2WriteCoalescer"/> on an embedded channel: the buffers written between two flushes leave as one buffer
/// with their bytes in order, their promises complete only when that buffer was written (on the event loop, after the
/// transport), a flush while a write is on its way waits for it, empty buffers are never written, other messages pass,
/// and nothing gathered leaks when the channel closes before a flush.
/// </summary>
public sealed class Http2WriteCoalescerTests : LeakCheckedTests
{
    [Fact]
    public void BuffersBetweenTwoFlushesLeaveAsOneInOrderAndTheirPromisesCompleteWithIt()
    {
        var channel = new EmbeddedChannel(new Http2WriteCoalescer());
        Task first = channel.WriteAsync(Unpooled.CopiedBuffer([1, 2, 3]));
        Task second = channel.WriteAsync(Unpooled.CopiedBuffer(new byte[20_000]));
        _ = channel.WriteAsync(Unpooled.CopiedBuffer([4]), channel.VoidPromise());
        Assert.False(first.IsCompleted);
        Assert.False(second.IsCompleted);
        Assert.Null(channel.ReadOutbound<IByteBuffer>());

        channel.Flush();
        var written = channel.ReadOutbound<IByteBuffer>();
        Assert.Equal(3 + 20_000 + 1, written.ReadableBytes);
        Assert.Equal(1, written.GetByte(0));
        Assert.Equal(3, written.GetByte(2));
        Assert.Equal(4, written.GetByte(written.ReadableBytes - 1));
        written.Release();
        Assert.Null(channel.ReadOutbound<IByteBuffer>());
        Assert.True(first.IsCompletedSuccessfully);
        Assert.True(second.IsCompletedSuccessfully);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AnotherMessagePassesAtOnceAndAnEmptyBufferIsNeverWritten()
    {
        var channel = new EmbeddedChannel(new Http2WriteCoalescer());
        Task empty = channel.WriteAsync(Unpooled.Empty);
        Assert.True(empty.IsCompletedSuccessfully); // nothing written before it
        _ = channel.WriteAsync(Unpooled.CopiedBuffer([1]));
        _ = channel.WriteAsync("not a buffer");
        channel.Flush();
        Assert.Equal("not a buffer", channel.ReadOutbound<string>());
        var bytes = channel.ReadOutbound<IByteBuffer>();
        Assert.Equal(1, bytes.ReadableBytes);
        bytes.Release();
        channel.Flush(); // nothing gathered: nothing written
        Assert.Null(channel.ReadOutbound<object>());
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AFlushWhileAWriteIsOnItsWayWaitsForItAndTakesOnlyWhatWasFlushed()
    {
        var transport = new HeldWrites();
        var channel = new EmbeddedChannel(transport, new Http2WriteCoalescer());
        Task a = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([1, 1]));
        Assert.Single(transport.Writes);

        Task b = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([2, 2, 2])); // the transport is still writing a
        Task c = channel.WriteAsync(Unpooled.CopiedBuffer([3])); // not flushed
        Assert.Single(transport.Writes);

        transport.Complete(0);
        Assert.False(a.IsCompleted, "completed on the event loop after the transport returned, not inside it");
        channel.RunPendingTasks();
        Assert.True(a.IsCompletedSuccessfully);
        Assert.Equal(2, transport.Writes.Count);
        Assert.Equal(3, transport.Writes[1].Buffer.ReadableBytes); // b alone: c was not flushed
        Assert.False(b.IsCompleted);

        channel.Flush(); // c's flush waits for b's write
        Assert.Equal(2, transport.Writes.Count);
        transport.Complete(1);
        channel.RunPendingTasks();
        Assert.True(b.IsCompletedSuccessfully);
        Assert.Equal(3, transport.Writes.Count);
        Assert.Equal(3, transport.Writes[2].Buffer.GetByte(0));
        transport.Complete(2);
        channel.RunPendingTasks();
        Assert.True(c.IsCompletedSuccessfully);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void WritesMadeWhileAFinishedWritesPromisesCompleteWaitAndLeaveTogether()
    {
        var transport = new HeldWrites();
        var channel = new EmbeddedChannel(transport, new Http2WriteCoalescer());
        Task first = channel.WriteAsync(Unpooled.CopiedBuffer([1]));
        Task second = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([2]));
        // Their continuations write and flush at once, as a stream's handler does when its write completes.
        _ = first.ContinueWith(_ => channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([3])), TaskContinuationOptions.ExecuteSynchronously);
        _ = second.ContinueWith(_ => channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([4])), TaskContinuationOptions.ExecuteSynchronously);
        Assert.Single(transport.Writes);

        transport.Complete(0);
        channel.RunPendingTasks();
        Assert.True(second.IsCompletedSuccessfully);
        Assert.Equal(2, transport.Writes.Count); // one write for both, never a second one on its way
        Assert.Equal(2, transport.Writes[1].Buffer.ReadableBytes);
        Assert.Equal(3, transport.Writes[1].Buffer.GetByte(0));
        Assert.Equal(4, transport.Writes[1].Buffer.GetByte(1));
        transport.Complete(1);
        channel.RunPendingTasks();
        Assert.Equal(2, transport.Writes.Count);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AnEmptyWriteCompletesWithWhatWasWrittenBeforeIt()
    {
        var transport = new HeldWrites();
        var channel = new EmbeddedChannel(transport, new Http2WriteCoalescer());
        Task data = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([1]));
        Task barrier = channel.WriteAsync(Unpooled.Empty); // as Http2ConnectionHandler waits before it closes
        channel.Flush();
        Assert.False(barrier.IsCompleted);
        transport.Complete(0);
        channel.RunPendingTasks();
        Assert.True(data.IsCompletedSuccessfully);
        Assert.True(barrier.IsCompletedSuccessfully);
        Assert.Single(transport.Writes); // nothing empty reached the transport

        Task gathered = channel.WriteAsync(Unpooled.CopiedBuffer([2]));
        Task second = channel.WriteAsync(Unpooled.Empty);
        channel.Flush();
        Assert.False(second.IsCompleted);
        transport.Complete(1);
        channel.RunPendingTasks();
        Assert.True(gathered.IsCompletedSuccessfully);
        Assert.True(second.IsCompletedSuccessfully);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AnEmptyWriteMadeWhileAFinishedWritesPromisesCompleteCompletesWithIt()
    {
        var transport = new HeldWrites();
        var channel = new EmbeddedChannel(transport, new Http2WriteCoalescer());
        Task data = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([1]));
        Task? barrier = null;
        _ = data.ContinueWith(_ => barrier = channel.WriteAsync(Unpooled.Empty), TaskContinuationOptions.ExecuteSynchronously);
        transport.Complete(0);
        channel.RunPendingTasks();
        Assert.True(data.IsCompletedSuccessfully);
        Assert.NotNull(barrier);
        Assert.True(barrier.IsCompletedSuccessfully); // nothing was written after it: it completes with the write before it
        Assert.Single(transport.Writes);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public async Task ClosingWhileAWriteIsOnItsWayFailsTheHeldWritesAndLeavesThatOneToTheTransport()
    {
        var transport = new HeldWrites();
        var channel = new EmbeddedChannel(transport, new Http2WriteCoalescer());
        Task onItsWay = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([1]));
        IByteBuffer held = PooledByteBufferAllocator.Default.Buffer(8);
        held.WriteLong(7);
        Task waiting = channel.WriteAndFlushAsync(held);
        await channel.CloseAsync();
        Assert.Equal(0, held.ReferenceCount); // copied when written, and what was gathered was released
        await Assert.ThrowsAnyAsync<Exception>(() => waiting);
        Assert.False(onItsWay.IsCompleted);
        transport.Complete(0);
        channel.RunPendingTasks();
        Assert.True(onItsWay.IsCompletedSuccessfully);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AFailedWriteFailsThePromisesItCarried()
    {
        var transport = new HeldWrites();
        var channel = new EmbeddedChannel(transport, new Http2WriteCoalescer());
        Task a = channel.WriteAsync(Unpooled.CopiedBuffer([1]));
        Task b = channel.WriteAndFlushAsync(Unpooled.CopiedBuffer([2]));
        transport.Fail(0);
        channel.RunPendingTasks();
        Assert.True(a.IsFaulted);
        Assert.True(b.IsFaulted);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public async Task ClosingBeforeAFlushReleasesWhatWasGatheredAndFailsItsPromises()
    {
        var channel = new EmbeddedChannel(new Http2WriteCoalescer());
        IByteBuffer buffer = PooledByteBufferAllocator.Default.Buffer(8);
        buffer.WriteLong(42);
        Task write = channel.WriteAsync(buffer);
        await channel.CloseAsync();
        Assert.Equal(0, buffer.ReferenceCount);
        await Assert.ThrowsAnyAsync<Exception>(() => write);
        Assert.False(channel.FinishAndReleaseAll());
    }

    /// <summary>A transport stand-in that keeps each write's promise until the test completes it.</summary>
    private sealed class HeldWrites : DotNetty.Transport.Channels.ChannelHandlerAdapter
    {
        public List<(IByteBuffer Buffer, DotNetty.Common.Concurrency.IPromise Promise)> Writes { get; } = [];

        public override void Write(DotNetty.Transport.Channels.IChannelHandlerContext context, object message, DotNetty.Common.Concurrency.IPromise promise) =>
            Writes.Add(((IByteBuffer)message, promise));

        public override void Flush(DotNetty.Transport.Channels.IChannelHandlerContext context)
        {
        }

        public void Complete(int index)
        {
            Writes[index].Buffer.Release();
            Writes[index].Promise.TryComplete();
        }

        public void Fail(int index)
        {
            Writes[index].Buffer.Release();
            Writes[index].Promise.TrySetException(new IOException("the transport failed"));
        }
    }
}
