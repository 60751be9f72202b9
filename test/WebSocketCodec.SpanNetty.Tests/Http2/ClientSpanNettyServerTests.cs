using System.Collections.Concurrent;
using System.Net.Security;
using System.Text;
using DotNetty.Codecs.Http2;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using static WebSocketCodec.SpanNetty.Tests.Http2.ClientHarness;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>Our SpanNetty HTTP/2 client against our SpanNetty HTTP/2 server (h2c and TLS with ALPN h2): echoes of every
/// size, subprotocol and permessage-deflate, 100 websockets on one connection and one abort, refusals, and the close
/// handshake ending both sides of the stream.</summary>
public sealed class ClientSpanNettyServerTests : LeakCheckedTests
{
    private static readonly int[] Sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20];

    private static Task<Http2Server> StartAsync(bool tls, WebSocketAcceptOptions? accept = null)
    {
        if (!tls)
        {
            return Http2Server.StartAsync(EchoCallbacks.Frames, accept);
        }

        Http2Server? server = null;
        var certificate = Certificate;
        return Http2Server.StartAsync(
            pipeline =>
            {
                pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
                {
                    ServerCertificate = certificate,
                    ApplicationProtocols = [SslApplicationProtocol.Http2],
                }));
                Http2WebSocketServer.Configure(pipeline, "/ws", sender => EchoCallbacks.Frames(sender, info => server!.Ended.Enqueue(info)), accept);
            },
            started => server = started);
    }

    private static Uri Url(Http2Server server, bool tls) => new($"{(tls ? "wss" : "ws")}://127.0.0.1:{server.Port}");

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EchoesEverySizeThenTheCloseHandshakeEndsBothSidesOfTheStream(bool tls)
    {
        var pool = new CountingPool();
        await using Http2Server server = await StartAsync(tls);
        await using (Http2WebSocketClient client = await ConnectAsync(Url(server, tls)))
        {
            ReceivingWebSocket websocket = await OpenAsync(client, "/ws", new WebSocketClientOptions { Session = WebSocketSessionOptions.Default with { Pool = pool } }, pool);
            foreach (int size in Sizes)
            {
                await websocket.EchoAsync(WebSocketOpcode.Binary, Payload(size));
                await websocket.EchoAsync(WebSocketOpcode.Text, Encoding.UTF8.GetBytes(new string('é', size / 2)));
            }

            WebSocketCloseInfo info = await websocket.CloseAsync();
            Assert.True(info.IsClean, info.ToString());
            await websocket.Opened.Stream.CloseCompletion.WaitAsync(TimeSpan.FromSeconds(20));
            Assert.True(websocket.Adapter.LocalEnded, "our END_STREAM");
            Assert.True(websocket.Adapter.RemoteEnded, "the server's END_STREAM");
            WebSocketCloseInfo served = await Http2EchoTests.Eventually(server);
            Assert.True(served.IsClean, served.ToString());
            Assert.True(client.Channel.IsActive, "the connection outlives its websocket");
        }

        await Eventually.True(() => pool.Outstanding == 0);
        pool.AssertBalanced();
    }

    [Fact]
    public async Task NegotiatesTheSubprotocolAndPermessageDeflate()
    {
        await using Http2Server server = await StartAsync(tls: false, new WebSocketAcceptOptions { Subprotocols = ["chat"], Deflate = new PerMessageDeflateOptions() });
        await using Http2WebSocketClient client = await ConnectAsync(Url(server, false));
        ReceivingWebSocket websocket = await OpenAsync(client, "/ws", new WebSocketClientOptions { Subprotocols = ["x-other", "chat"], Deflate = new PerMessageDeflateOptions() });
        Assert.Equal("chat", websocket.WebSocket.Subprotocol);
        Assert.NotNull(websocket.WebSocket.Deflate);
        byte[] json = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("{\"id\":1,\"name\":\"user\"},", 2000)));
        await websocket.EchoAsync(WebSocketOpcode.Text, json);
        await websocket.EchoAsync(WebSocketOpcode.Binary, Payload(300_000));
        Assert.True((await websocket.CloseAsync()).IsClean);

        ReceivingWebSocket plain = await OpenAsync(client, "/ws"); // nothing offered: nothing negotiated
        Assert.Null(plain.WebSocket.Subprotocol);
        Assert.Null(plain.WebSocket.Deflate);
        await plain.EchoAsync(WebSocketOpcode.Text, json);
        Assert.True((await plain.CloseAsync()).IsClean);
    }

    [Fact]
    public async Task AHundredWebSocketsShareOneConnectionAndOurAbortResetsOnlyItsStream()
    {
        await using Http2Server server = await StartAsync(tls: false);
        await using Http2WebSocketClient client = await ConnectAsync(Url(server, false));
        var websockets = new List<ReceivingWebSocket>();
        for (int i = 0; i < 100; i++)
        {
            websockets.Add(await OpenAsync(client, "/ws"));
        }

        Assert.Single(server.Connections);
        await Task.WhenAll(websockets.Select((ws, i) => ws.EchoAsync(WebSocketOpcode.Text, Encoding.UTF8.GetBytes($"hello {i}"))));

        await websockets[7].Opened.AbortAsync();
        WebSocketCloseInfo aborted = await Http2EchoTests.Eventually(server);
        Assert.Equal(CloseStatus.AbnormalClosure, aborted.Status);
        Assert.Contains("reset the stream (Cancel)", aborted.Error?.ToString() ?? string.Empty, StringComparison.Ordinal);
        Assert.Equal(CloseStatus.AbnormalClosure, (await websockets[7].WebSocket.Completion.WaitAsync(TimeSpan.FromSeconds(20))).Status);

        List<ReceivingWebSocket> others = websockets.Where((_, i) => i != 7).ToList();
        await Task.WhenAll(others.Select((ws, i) => ws.EchoAsync(WebSocketOpcode.Binary, Payload(1000 + i))));
        Assert.Single(server.Ended);
        WebSocketCloseInfo[] closed = await Task.WhenAll(others.Select(ws => ws.CloseAsync()));
        Assert.All(closed, info => Assert.True(info.IsClean, info.ToString()));
        await Http2EchoTests.Eventually(server, 100);
        Assert.Equal(99, server.Ended.Count(info => info.IsClean));
    }

    [Theory]
    [InlineData("/missing", null, 404)]
    [InlineData("/ws", "https://evil.example", 403)]
    public async Task ARefusalFailsWithTheServersStatusAndTheConnectionStaysUsable(string path, string? origin, int status)
    {
        await using Http2Server server = await StartAsync(tls: false, new WebSocketAcceptOptions { AllowedOrigins = ["https://good.example"] });
        await using Http2WebSocketClient client = await ConnectAsync(Url(server, false));
        var options = new WebSocketClientOptions { Headers = origin is null ? [] : [new("Origin", origin)] };
        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client, path, options));
        Assert.Equal(status, refused.StatusCode);
        Assert.Contains($"with {status}", refused.Message, StringComparison.Ordinal);

        ReceivingWebSocket websocket = await OpenAsync(client, "/ws", new WebSocketClientOptions { Headers = [new("Origin", "https://good.example")] });
        await websocket.EchoAsync(WebSocketOpcode.Text, "still here"u8.ToArray());
        Assert.True((await websocket.CloseAsync()).IsClean);
    }

    [Fact]
    public async Task AfterTheServersGoAwayTheOpenWebSocketIsClosedWith1001AndNoNewOneIsOpened()
    {
        await using Http2Server server = await StartAsync(tls: false);
        await using Http2WebSocketClient client = await ConnectAsync(Url(server, false));
        ReceivingWebSocket websocket = await OpenAsync(client, "/ws");
        await websocket.EchoAsync(WebSocketOpcode.Text, "before"u8.ToArray());
        Assert.True(server.Connections.TryPeek(out var connection));

        Task shutdown = Http2WebSocketServer.ShutdownAsync(connection!, TimeSpan.FromSeconds(10));
        WebSocketCloseInfo closed = await websocket.WebSocket.Completion.WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal(CloseStatus.GoingAway, closed.ReceivedStatus);

        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client, "/ws"));
        Assert.Contains("takes no new websocket: the server sent GOAWAY", refused.Message, StringComparison.Ordinal);
        await shutdown.WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Single(server.Connections); // the refusal opened no stream, nor a connection
    }
}
