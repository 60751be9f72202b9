using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Broadcast;

/// <summary>A broadcast frame is a server frame encoded once in pooled memory, given back when its last reference
/// goes.</summary>
public sealed class BroadcastFrameTests
{
    [Theory]
    [InlineData(WebSocketOpcode.Text, 0)]
    [InlineData(WebSocketOpcode.Text, 125)]
    [InlineData(WebSocketOpcode.Binary, 126)]
    [InlineData(WebSocketOpcode.Binary, 70_000)]
    public void EncodesOneFinalUnmaskedFrame(WebSocketOpcode opcode, int length)
    {
        byte[] payload = new byte[length];
        Random.Shared.NextBytes(payload);
        if (opcode == WebSocketOpcode.Text)
        {
            payload.AsSpan().Fill((byte)'x');
        }

        using BroadcastFrame frame = BroadcastFrame.Create(opcode, payload);

        Assert.Equal(WireFrames.Server(opcode, payload), frame.Span.ToArray());
        Assert.Equal(opcode, frame.Opcode);
        Assert.Equal(length, frame.PayloadLength);
        Assert.Equal(WireFrames.Server(opcode, payload).Length, frame.Length);
    }

    [Theory]
    [InlineData(WebSocketOpcode.Continuation)]
    [InlineData(WebSocketOpcode.Ping)]
    [InlineData(WebSocketOpcode.Pong)]
    [InlineData(WebSocketOpcode.Close)]
    public void OnlyWholeDataMessagesAreBroadcast(WebSocketOpcode opcode)
    {
        var pool = new CountingPool();
        Assert.Throws<ArgumentException>(() => BroadcastFrame.Create(opcode, [1, 2], pool));
        Assert.Equal(0, pool.Rented);
    }

    [Fact]
    public void TheMemoryGoesBackWhenTheLastReferenceIsGivenUp()
    {
        var pool = new CountingPool();
        BroadcastFrame frame = BroadcastFrame.Create(WebSocketOpcode.Binary, new byte[300], pool);
        Assert.True(frame.TryRetain()); // a member that queued it

        frame.Dispose();
        frame.Dispose(); // the creator's reference is given up once only
        Assert.Equal(1, pool.Outstanding);
        Assert.Equal(frame.Length, frame.Span.Length); // still readable by the member holding it

        frame.Release();
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.BadReturns);
        Assert.False(frame.TryRetain());
        Assert.Throws<ObjectDisposedException>(() => frame.Span.Length);
    }

    [Fact]
    public void ReleasingMoreOftenThanRetainedIsRefused()
    {
        var pool = new CountingPool();
        BroadcastFrame frame = BroadcastFrame.Create(WebSocketOpcode.Binary, [1], pool);
        frame.Dispose();

        Assert.Throws<InvalidOperationException>(frame.Release);
        Assert.Equal(0, pool.BadReturns);
    }
}
