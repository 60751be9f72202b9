using System.Net.WebSockets;

namespace WebSocketCodec.Pipelines.Tests.Messages;

/// <summary>The WebSocket adapter's Dispose aborts and returns at once, as <c>ManagedWebSocket</c>'s does: it never
/// waits for the read loop, and the buffers of unreceived messages go back to the pool once the loop has ended.</summary>
public sealed class PipeWebSocketDisposeTests
{
    [Fact]
    public async Task DisposeReturnsWhileTheTransportHoldsTheReadLoopAndEveryBufferComesBackAfter()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var transport = new HeldTransport(loop.Server);
        var socket = new PipeWebSocket((new WebSocketConnection(transport, WebSocketRole.Server, new() { Pool = pool })).RunMessages(pool));
        await loop.SendAsync([
            .. WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3]),
            .. WireFrames.Client(WebSocketOpcode.Text, "x"u8),
            .. WireFrames.Client(WebSocketOpcode.Binary, new byte[4000]),
        ]);
        byte[] buffer = new byte[2];
        ValueWebSocketReceiveResult partial = await socket.ReceiveAsync(buffer.AsMemory(), Loopback.Timeout());
        Assert.False(partial.EndOfMessage); // one message half read, two queued

        // On another thread: a Dispose that waited for the read loop would wait for the transport's release.
        Task disposing = Task.Run(socket.Dispose);
        try
        {
            await disposing.WaitAsync(Loopback.Timeout());
            await transport.Held.WaitAsync(Loopback.Timeout()); // the aborted loop is still inside the transport's read
            Assert.Equal(WebSocketState.Closed, socket.State);
            Assert.NotEqual(0, pool.Outstanding); // the queued messages wait for the loop's end
            await Assert.ThrowsAsync<ObjectDisposedException>(async () => await socket.ReceiveAsync(buffer.AsMemory(), default));
        }
        finally
        {
            transport.Release();
        }

        await socket.Messages.Completion.WaitAsync(Loopback.Timeout());
        await Eventually.True(() => pool.Outstanding == 0); // the rest of the disposal runs in the background
    }
}
