using System.Net.WebSockets;

namespace WebSocketCodec.Pipelines.Tests.Messages;

/// <summary>The message API's queue is bounded in bytes as well as in messages, and the WebSocket adapter's Dispose
/// returns at once.</summary>
public sealed class MessageQueueBoundsTests
{
    [Fact]
    public async Task ReadingPausesWhenTheQueuedBytesReachTheirBound()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new() { Pool = pool });
        var server = channel.RunMessages(pool, maxQueuedMessages: 1000, maxQueuedBytes: 10_000);

        // Each message in its own read (the first three are queued, each holding a pooled buffer, before the next is
        // sent): after three (12,000 B) the loop stops reading, so a Ping behind them waits.
        for (int i = 0; i < 5; i++)
        {
            await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, Enumerable.Repeat((byte)i, 4000).ToArray()));
            if (i < 3)
            {
                await Eventually.True(() => pool.Outstanding == i + 1);
            }
        }

        // The loop waits for the queue: still held, and held only once, after the Ping was sent, it read nothing since.
        await Eventually.True(() => channel.Driver.IsHeldByListener);
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Ping, "p"u8));
        Assert.True(channel.Driver.IsHeldByListener);
        Assert.Equal(1, channel.Driver.ListenerHolds);
        Assert.Equal(3, pool.Outstanding); // three queued messages, and no fourth
        Assert.Equal(0, loop.ServerBytesPending()); // no Pong: the Ping was not read

        // Receiving makes room: every message arrives, in order, and the Ping is answered.
        for (int i = 0; i < 5; i++)
        {
            using WebSocketMessage? message = await server.ReceiveAsync(Loopback.Timeout());
            Assert.Equal(4000, message!.Length);
            Assert.Equal((byte)i, message.Payload.Span[0]);
        }

        var pong = WireFrames.Read(await loop.ReadAsync(3), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(WebSocketOpcode.Pong, pong[0].Opcode);
        await loop.CloseCleanlyAsync(server);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task DisposingTheWebSocketAdapterReturnsAtOnceAndItsBuffersComeBack()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var socket = new PipeWebSocket((new WebSocketConnection(loop.Server, WebSocketRole.Server, new() { Pool = pool })).RunMessages());
        await loop.SendAsync([.. WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3]), .. WireFrames.Client(WebSocketOpcode.Text, "x"u8)]);
        byte[] buffer = new byte[2];
        ValueWebSocketReceiveResult partial = await socket.ReceiveAsync(buffer.AsMemory(), Loopback.Timeout());
        Assert.False(partial.EndOfMessage); // one message half read, one queued

        socket.Dispose();

        Assert.Equal(WebSocketState.Closed, socket.State);
        await socket.Messages.Completion.WaitAsync(Loopback.Timeout());
        await Eventually.True(() => pool.Outstanding == 0); // the read loop's end returns the queued buffers in the background
        await Assert.ThrowsAsync<ObjectDisposedException>(async () => await socket.ReceiveAsync(buffer.AsMemory(), default));
    }
}
