using System.Net.WebSockets;
using System.Text;
using Microsoft.Extensions.Time.Testing;

namespace WebSocketCodec.Pipelines.Tests.Messages;

/// <summary>The message API and the <see cref="WebSocket"/> adapter between our client and our server, in memory.</summary>
public sealed class MessageApiTests
{
    private static (MessageWebSocket Server, MessageWebSocket Client, CountingPool Pool) Pair(WebSocketSessionOptions? options = null)
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        options = (options ?? new WebSocketSessionOptions()) with { Pool = pool };
        var server = (new WebSocketConnection(loop.Server, WebSocketRole.Server, options)).RunMessages(pool);
        var client = (new WebSocketConnection(loop.Client, WebSocketRole.Client, options)).RunMessages(pool);
        return (server, client, pool);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(125)]
    [InlineData(126)]
    [InlineData(65_535)]
    [InlineData(65_536)]
    [InlineData(200_000)]
    public async Task MessagesCrossBothWaysWholeAndTyped(int length)
    {
        var (server, client, pool) = Pair();
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        string text = new('ü', length / 2);

        await client.SendAsync(payload, WebSocketMessageType.Binary);
        await client.SendTextAsync(text);
        using (WebSocketMessage? binary = await server.ReceiveAsync(Loopback.Timeout()))
        using (WebSocketMessage? received = await server.ReceiveAsync(Loopback.Timeout()))
        {
            Assert.Equal(WebSocketMessageType.Binary, binary!.Type);
            Assert.Equal(payload, binary.Payload.ToArray());
            Assert.Equal(WebSocketMessageType.Text, received!.Type);
            Assert.Equal(text, received.GetText());
            await server.SendAsync(binary.Payload, WebSocketMessageType.Binary);
        }

        using (WebSocketMessage? echoed = await client.ReceiveAsync(Loopback.Timeout()))
        {
            Assert.Equal(payload, echoed!.Payload.ToArray());
        }

        WebSocketCloseInfo info = await client.CloseAsync((CloseStatus)1000, "done", Loopback.Timeout());
        Assert.True(info.IsClean);
        Assert.Null(await server.ReceiveAsync(Loopback.Timeout()));
        Assert.Equal("done", (await server.Completion).ReceivedReason);
        await server.DisposeAsync();
        await client.DisposeAsync();
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task FragmentsWithPingsBetweenThemAreJoined()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        await using var server = (new WebSocketConnection(loop.Server, WebSocketRole.Server, new() { Pool = pool })).RunMessages(pool);
        await loop.SendAsync([
            .. WireFrames.Client(WebSocketOpcode.Text, "Grü"u8[..3], fin: false),
            .. WireFrames.Client(WebSocketOpcode.Ping, "1"u8),
            .. WireFrames.Client(WebSocketOpcode.Continuation, "Grü"u8[3..], fin: false),
            .. WireFrames.Client(WebSocketOpcode.Ping, "2"u8),
            .. WireFrames.Client(WebSocketOpcode.Continuation, "ße"u8)]);
        using WebSocketMessage? message = await server.ReceiveAsync(Loopback.Timeout());
        Assert.Equal("Grüße", message!.GetText());
        var pongs = WireFrames.Read(await loop.ReadAsync(6), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(["1", "2"], pongs.Select(p => Encoding.UTF8.GetString(p.Payload)));
        await loop.SendAsync(WireFrames.ClientClose(1001));
        Assert.Null(await server.ReceiveAsync(Loopback.Timeout()));
        Assert.Equal((CloseStatus)1001, (await server.Completion).ReceivedStatus);
        message.Dispose();
        await server.DisposeAsync();
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task UnreceivedMessagesAreReturnedToThePoolOnDispose()
    {
        var (server, client, pool) = Pair();
        for (int i = 0; i < 10; i++)
        {
            await client.SendAsync(new byte[1000], WebSocketMessageType.Binary);
        }

        await client.CloseAsync((CloseStatus)1000, null, Loopback.Timeout());
        await server.Completion.WaitAsync(Loopback.Timeout());
        await server.DisposeAsync();
        await client.DisposeAsync();
        Assert.True(pool.Rented >= 10);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task AFullQueuePausesReadingYetCloseAndDisposeFinish()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var server = (new WebSocketConnection(loop.Server, WebSocketRole.Server, new() { Pool = pool })).RunMessages(pool, maxQueuedMessages: 2);
        for (int i = 0; i < 5; i++)
        {
            await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, [(byte)i]));
            if (i < 2)
            {
                await Eventually.True(() => pool.Outstanding == i + 1); // queued (a pooled buffer each) before the next
            }
        }

        // Reading paused after the queue filled (at the second message): the loop waits for the queue, so the messages
        // behind and a Ping sent now stay unread. Still held, and held only once, after the Ping: nothing was read.
        await Eventually.True(() => server.Driver.IsHeldByListener);
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Ping, "p"u8));
        Assert.True(server.Driver.IsHeldByListener);
        Assert.Equal(1, server.Driver.ListenerHolds);
        Assert.Equal(2, pool.Outstanding); // the two queued messages, and no third
        Assert.Equal(0, loop.ServerBytesPending()); // no Pong
        using (WebSocketMessage? first = await server.ReceiveAsync(Loopback.Timeout()))
        {
            Assert.Equal([0], first!.Payload.ToArray());
        }

        // Closing releases the pause, so the peer's Close is read.
        await loop.CloseCleanlyAsync(server);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task DisposeWhileReadingIsPausedDoesNotHang()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var server = (new WebSocketConnection(loop.Server, WebSocketRole.Server, new() { Pool = pool })).RunMessages(pool, maxQueuedMessages: 1);
        await loop.SendAsync([.. WireFrames.Client(WebSocketOpcode.Binary, [1]), .. WireFrames.Client(WebSocketOpcode.Binary, [2])]);
        await Eventually.True(() => pool.Outstanding >= 1); // read and queued: the queue is full, reading pauses
        await server.DisposeAsync().AsTask().WaitAsync(Loopback.Timeout());
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task TheWebSocketAdapterBehavesLikeClientWebSocket()
    {
        var loop = new Loopback();
        using WebSocket server = new PipeWebSocket((new WebSocketConnection(loop.Server, WebSocketRole.Server, subprotocol: "chat")).RunMessages());
        using WebSocket client = new PipeWebSocket((new WebSocketConnection(loop.Client, WebSocketRole.Client)).RunMessages());
        Assert.Equal(WebSocketState.Open, server.State);
        Assert.Equal("chat", server.SubProtocol);

        // A message sent in three fragments, received through a small buffer.
        await client.SendAsync("Hel"u8.ToArray(), WebSocketMessageType.Text, false, Loopback.Timeout());
        await client.SendAsync("lo, "u8.ToArray(), WebSocketMessageType.Text, false, Loopback.Timeout());
        await client.SendAsync("world"u8.ToArray(), WebSocketMessageType.Text, true, Loopback.Timeout());
        byte[] buffer = new byte[4];
        var received = new List<byte>();
        WebSocketReceiveResult result;
        do
        {
            result = await server.ReceiveAsync(buffer, Loopback.Timeout());
            received.AddRange(buffer.Take(result.Count));
            Assert.Equal(WebSocketMessageType.Text, result.MessageType);
        }
        while (!result.EndOfMessage);
        Assert.Equal("Hello, world", Encoding.UTF8.GetString([.. received]));

        // The usual ASP.NET Core echo loop ending: Close received, then CloseAsync.
        await client.CloseOutputAsync(WebSocketCloseStatus.EndpointUnavailable, "bye", Loopback.Timeout());
        result = await server.ReceiveAsync(buffer, Loopback.Timeout());
        Assert.Equal(WebSocketMessageType.Close, result.MessageType);
        Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, result.CloseStatus);
        Assert.Equal("bye", result.CloseStatusDescription);
        await server.CloseAsync(result.CloseStatus!.Value, null, Loopback.Timeout());
        Assert.Equal(WebSocketState.Closed, server.State);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Loopback.Timeout());
        Assert.Equal(WebSocketState.Closed, client.State);
        Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, client.CloseStatus); // the server echoed the status
        await Assert.ThrowsAsync<WebSocketException>(() => client.SendAsync("late"u8.ToArray(), WebSocketMessageType.Text, true, default));
    }

    /// <summary>A server with a 10 s keep-alive and a 5 s Pong timeout on a fake clock, advanced to its first Ping.</summary>
    private static async Task<(FakeTimeProvider Time, Loopback Loop, Task<WebSocketCloseInfo> Run, (WebSocketOpcode Opcode, bool Fin, byte[] Payload) Ping)> StartAndAwaitTheFirstPingAsync()
    {
        var time = new FakeTimeProvider();
        var loop = new Loopback();
        var options = new WebSocketSessionOptions { TimeProvider = time, KeepAliveInterval = TimeSpan.FromSeconds(10), KeepAliveTimeout = TimeSpan.FromSeconds(5) };
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, options);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout()); // arms its timer before it first awaits
        time.Advance(TimeSpan.FromSeconds(10));
        var ping = Assert.Single(WireFrames.Read(await loop.ReadAsync(2), WebSocketRole.Client, validateUtf8: false));
        return (time, loop, run, ping);
    }

    [Fact]
    public async Task KeepAlivePingsAndGivesUpOnAPeerThatNeverPongs()
    {
        var (time, loop, run, ping) = await StartAndAwaitTheFirstPingAsync();
        Assert.Equal(WebSocketOpcode.Ping, ping.Opcode);
        Assert.False(run.IsCompleted);

        time.Advance(TimeSpan.FromSeconds(5));
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, info.EndReason);
        var close = Assert.Single(WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false));
        Assert.Equal(1001, WireFrames.CloseStatusOf(close.Payload));
    }

    [Fact]
    public async Task KeepAliveIsSatisfiedByThePong()
    {
        var (time, loop, run, ping) = await StartAndAwaitTheFirstPingAsync();
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Pong, ping.Payload));
        await PingPongAsync(loop, "a"); // the server read the Pong before the clock moves on
        time.Advance(TimeSpan.FromSeconds(6));

        // Two round trips after the Pong timeout's moment: the loop handles a due timer before it reads again, so the
        // second Pong proves the timer ran and left the websocket open (a keep-alive timeout would have sent 1001).
        await PingPongAsync(loop, "b");
        await PingPongAsync(loop, "c");
        Assert.False(run.IsCompleted);
        await loop.SendAsync(WireFrames.ClientClose(1000));
        Assert.True((await run.WaitAsync(Loopback.Timeout())).IsClean);
    }

    [Fact]
    public async Task IdleTimeoutClosesWith1001AndCloseTimeoutDropsASilentPeer()
    {
        var time = new FakeTimeProvider();
        var loop = new Loopback();
        var options = new WebSocketSessionOptions { TimeProvider = time, IdleTimeout = TimeSpan.FromSeconds(30), CloseTimeout = TimeSpan.FromSeconds(3) };
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, options);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout()); // arms its timer before it first awaits
        time.Advance(TimeSpan.FromSeconds(29));

        // Nothing may happen at 29 s: the fake clock runs a due timer within Advance, and none fired, so nothing will
        // (no input came either).
        Assert.Equal(0, channel.Driver.TimerFirings);
        Assert.Equal(WebSocketSessionState.Open, channel.State);
        Assert.Equal(0, loop.ServerBytesPending());
        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(1, channel.Driver.TimerFirings);
        var close = Assert.Single(WireFrames.Read(await loop.ReadAsync(4), WebSocketRole.Client, validateUtf8: false));
        Assert.Equal(1001, WireFrames.CloseStatusOf(close.Payload));
        Assert.Equal(WebSocketSessionState.CloseSent, channel.State);

        time.Advance(TimeSpan.FromSeconds(3));
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(WebSocketEndReason.CloseTimeout, info.EndReason);
    }

    /// <summary>Sends a Ping and reads its Pong: everything the peer sent before has been read by the server.</summary>
    private static async Task PingPongAsync(Loopback loop, string payload)
    {
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Ping, Encoding.UTF8.GetBytes(payload)));
        var pong = Assert.Single(WireFrames.Read(await loop.ReadAsync(2 + payload.Length), WebSocketRole.Client));
        Assert.Equal(WebSocketOpcode.Pong, pong.Opcode);
        Assert.Equal(payload, Encoding.UTF8.GetString(pong.Payload));
    }
}
