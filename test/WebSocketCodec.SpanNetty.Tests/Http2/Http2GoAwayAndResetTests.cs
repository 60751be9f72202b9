using System.Net.WebSockets;
using DotNetty.Buffers;
using DotNetty.Transport.Channels;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using static WebSocketCodec.SpanNetty.Tests.Http2.H2Clients;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// How websockets on one HTTP/2 connection end when a stream or the connection goes: the client's RST_STREAM in the
/// middle of a message (the gathered fragments go back to the pool, the other streams keep echoing), the client
/// dropping its connection with websockets open (every one ends on the server, nothing leaks), and the server's
/// <see cref="Http2WebSocketServer.ShutdownAsync"/> (Close 1001 on each websocket and a GOAWAY: the client opens its
/// next websocket on a new connection).
/// </summary>
public sealed class Http2GoAwayAndResetTests : LeakCheckedTests
{
    private readonly CountingPool _pool = new();

    private WebSocketAcceptOptions Accept => new() { Session = new WebSocketSessionOptions { Pool = _pool } };

    [Fact]
    public async Task AResetInTheMiddleOfAMessageEndsThatWebSocketAloneAndReturnsItsBuffers()
    {
        await using Http2Server server = await Http2Server.StartAsync((sender, ended) => EchoCallbacks.Messages(sender, ended), Accept);
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        RawWebSocket other = await RawWebSocket.OpenHttp2Async(server.HttpUrl("/"), "/ws", invoker);
        RawWebSocket reset = await RawWebSocket.OpenHttp2Async(server.HttpUrl("/"), "/ws", invoker);
        await reset.SendAsync(HalfAMessage());
        await other.AssertEchoAsync("before the reset");
        await ClientWebSocketTlsTests.UntilAsync(() => _pool.Outstanding > 0); // the server holds pooled buffers for it
        await reset.DisposeAsync(); // RST_STREAM CANCEL

        WebSocketCloseInfo info = await Http2EchoTests.Eventually(server);
        Assert.False(info.IsClean);
        Assert.Equal(CloseStatus.AbnormalClosure, info.Status);
        await other.AssertEchoAsync("after the reset");
        Assert.Single(server.Ended);
        await UntilOutstandingAsync(0);
        await other.SendAsync(WireFrames.ClientClose(1000));
        Assert.Equal(1000, (await other.ReadUntilCloseAsync(answer: false)).Status);
        await other.DisposeAsync(); // ends our side of the stream: the server need not wait for it
        await Http2EchoTests.Eventually(server, 2);
        Assert.Single(server.Connections);
        Assert.Equal(0, _pool.BadReturns);
    }

    [Fact]
    public async Task TheClientsConnectionGoingAwayEndsEveryWebSocketOnIt()
    {
        await using Http2Server server = await Http2Server.StartAsync((sender, ended) => EchoCallbacks.Messages(sender, ended), Accept);
        var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        var sockets = new List<RawWebSocket>();
        try
        {
            for (int i = 0; i < 5; i++)
            {
                RawWebSocket socket = await RawWebSocket.OpenHttp2Async(server.HttpUrl("/"), "/ws", invoker);
                sockets.Add(socket);
                await socket.AssertEchoAsync($"socket {i}");
            }

            // Two are in the middle of a message and of a frame: the server holds pooled buffers for them.
            await sockets[1].SendAsync(HalfAMessage());
            await sockets[3].SendAsync(HalfAMessage());
            await ClientWebSocketTlsTests.UntilAsync(() => _pool.Outstanding > 0);
            Assert.Single(server.Connections);
            Assert.True(server.Connections.TryPeek(out IChannel? connection));

            // The client goes: its handler disposed (GOAWAY, where it sends one) and its connection closed.
            invoker.Dispose();
            foreach (RawWebSocket socket in sockets)
            {
                await socket.DisposeAsync();
            }

            sockets.Clear();
            await Http2EchoTests.Eventually(server, 5);
            Assert.All(server.Ended, info => Assert.False(info.IsClean));
            await connection!.CloseCompletion.WaitAsync(TimeSpan.FromSeconds(10));
            await UntilOutstandingAsync(0);
            Assert.Equal(0, _pool.BadReturns);
        }
        finally
        {
            foreach (RawWebSocket socket in sockets)
            {
                await socket.DisposeAsync();
            }

            invoker.Dispose();
        }
    }

    [Fact]
    public async Task TheServersShutdownSendsClose1001AndAGoAwaySoTheNextWebSocketTakesANewConnection()
    {
        await using Http2Server server = await Http2Server.StartAsync((sender, ended) => EchoCallbacks.Messages(sender, ended), Accept);
        using HttpMessageInvoker invoker = Invoker();
        using ClientWebSocket a = await ConnectAsync(invoker, server.Url());
        using ClientWebSocket b = await ConnectAsync(invoker, server.Url());
        await b.SendAsync(Payload(5000), WebSocketMessageType.Binary, false, Timeout()); // b is in the middle of a message
        Assert.True(server.Connections.TryPeek(out IChannel? first));

        Task closed = Http2WebSocketServer.ShutdownAsync(first!, TimeSpan.FromSeconds(10));
        foreach (ClientWebSocket client in new[] { a, b })
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(new byte[16], Timeout());
            Assert.Equal(WebSocketMessageType.Close, result.MessageType);
            Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, client.CloseStatus);
        }

        // The GOAWAY came too: the same handler opens the next websocket on a new connection.
        using ClientWebSocket c = await ConnectAsync(invoker, server.Url());
        Assert.Equal(2, server.Connections.Count);
        await c.SendAsync("on the new connection"u8.ToArray(), WebSocketMessageType.Text, true, Timeout());
        Assert.Equal("on the new connection"u8.ToArray(), (await ReceiveAsync(c)).Payload);

        foreach (ClientWebSocket client in new[] { a, b })
        {
            await client.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        }

        await closed.WaitAsync(TimeSpan.FromSeconds(20));
        await Http2EchoTests.Eventually(server, 2);
        Assert.All(server.Ended, info => Assert.Equal(CloseStatus.GoingAway, info.SentStatus));
        await c.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        await Http2EchoTests.Eventually(server, 3);
        await UntilOutstandingAsync(0);
        Assert.Equal(0, _pool.BadReturns);
    }

    /// <summary>A first fragment, then half of the next frame.</summary>
    private static byte[] HalfAMessage()
    {
        byte[] next = WireFrames.Client(WebSocketOpcode.Continuation, Payload(3000), fin: false);
        return [.. WireFrames.Client(WebSocketOpcode.Binary, Payload(5000), fin: false), .. next.AsSpan(0, 1500)];
    }

    private async Task UntilOutstandingAsync(int count) =>
        await ClientWebSocketTlsTests.UntilAsync(() => _pool.Outstanding == count);
}
