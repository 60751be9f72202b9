using DotNetty.Buffers;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// <see cref="Http2WriteCoalescer"/> on an embedded channel: the buffers written between two flushes leave as one buffer
/// with their bytes in order, their promises complete only when that buffer was written, other messages pass in order,
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
    public void AnotherMessageLeavesAfterTheBytesWrittenBeforeIt()
    {
        var channel = new EmbeddedChannel(new Http2WriteCoalescer());
        _ = channel.WriteAsync(Unpooled.CopiedBuffer([1]));
        _ = channel.WriteAsync("not a buffer");
        _ = channel.WriteAsync(Unpooled.CopiedBuffer([2]));
        channel.Flush();
        var before = channel.ReadOutbound<IByteBuffer>();
        Assert.Equal(1, before.GetByte(0));
        before.Release();
        Assert.Equal("not a buffer", channel.ReadOutbound<string>());
        var after = channel.ReadOutbound<IByteBuffer>();
        Assert.Equal(2, after.GetByte(0));
        after.Release();
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
}
