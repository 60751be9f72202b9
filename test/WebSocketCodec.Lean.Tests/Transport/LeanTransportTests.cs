using System.Net.Security;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Lean.Loop;

namespace WebSocketCodec.Lean.Tests.Transport;

/// <summary>What the lean transport itself does: output chunks that return when sent (an idle websocket holds none),
/// large messages through a socket that fills, many websockets at once, the server's shutdown, TLS, the message
/// API.</summary>
public sealed class LeanTransportTests
{
    [Fact]
    public async Task IdleWebSocketsHoldNoOutputChunkAfterTheirEchoes()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho();
        var clients = new List<ClientWebSocket>();
        try
        {
            for (int i = 0; i < 50; i++)
            {
                clients.Add(await LeanServers.ConnectAsync(server.Uri));
            }

            await Task.WhenAll(clients.Select((client, i) => LeanServers.EchoAsync(client, new byte[100 + (i * 500)])));
            // Every echo was received whole: every chunk that carried one goes back to its loop's pool once the loop has
            // seen its send complete, which can be a moment after the client read the bytes (a CI run saw 2 still out).
            await WebSocketCodec.Testing.Eventually.True(() => server.Loops.Sum(loop => loop.Chunks.Outstanding) == 0, TimeSpan.FromSeconds(10));
            Assert.Equal(50, server.OpenWebSockets);
        }
        finally
        {
            foreach (ClientWebSocket client in clients)
            {
                client.Dispose();
            }
        }
    }

    [Fact]
    public async Task MessagesOfSeveralMegabytesEchoWholeWhileTheClientReadsSlowly()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho();
        using ClientWebSocket client = await LeanServers.ConnectAsync(server.Uri);
        byte[] message = new byte[3 * 1024 * 1024];
        new Random(7).NextBytes(message);
        Task send = client.SendAsync(message, WebSocketMessageType.Binary, true, RawHttp.Timeout());
        var received = new MemoryStream();
        byte[] buffer = new byte[8 * 1024];
        ValueWebSocketReceiveResult result;
        int reads = 0;
        do
        {
            result = await client.ReceiveAsync(buffer.AsMemory(), RawHttp.Timeout());
            received.Write(buffer, 0, result.Count);
            if (++reads % 64 == 0)
            {
                await Task.Delay(1); // a slow reader: the server's socket fills and its output waits
            }
        }
        while (!result.EndOfMessage);

        await send;
        Assert.Equal(message, received.ToArray());
        Assert.Equal(0, server.Loops.Sum(loop => loop.Chunks.Outstanding));
    }

    [Fact]
    public async Task FiveHundredWebSocketsEchoABurstEachInOrder()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho();
        var clients = new ClientWebSocket[500];
        try
        {
            for (int i = 0; i < clients.Length; i += 50)
            {
                await Task.WhenAll(Enumerable.Range(i, 50).Select(async n => clients[n] = await LeanServers.ConnectAsync(server.Uri)));
            }

            await Task.WhenAll(clients.Select(async (client, n) =>
            {
                for (int m = 0; m < 20; m++)
                {
                    await client.SendAsync(Encoding.UTF8.GetBytes($"{n}:{m}"), WebSocketMessageType.Text, true, RawHttp.Timeout());
                }

                byte[] buffer = new byte[64];
                for (int m = 0; m < 20; m++)
                {
                    ValueWebSocketReceiveResult result = await client.ReceiveAsync(buffer.AsMemory(), RawHttp.Timeout());
                    Assert.Equal($"{n}:{m}", Encoding.UTF8.GetString(buffer, 0, result.Count));
                }
            }));
            Assert.Equal(500, server.OpenWebSockets);
        }
        finally
        {
            foreach (ClientWebSocket? client in clients)
            {
                client?.Dispose();
            }
        }
    }

    [Fact]
    public async Task DisposingTheServerClosesEveryWebSocketWith1001()
    {
        LeanWebSocketServer server = LeanServers.StartEcho();
        ClientWebSocket[] clients = await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => LeanServers.ConnectAsync(server.Uri)));
        Task<ValueWebSocketReceiveResult>[] closes = [.. clients.Select(c => c.ReceiveAsync(new byte[16].AsMemory(), RawHttp.Timeout()).AsTask())];
        Task disposed = server.DisposeAsync().AsTask();
        foreach ((ClientWebSocket client, Task<ValueWebSocketReceiveResult> close) in clients.Zip(closes))
        {
            Assert.Equal(WebSocketMessageType.Close, (await close).MessageType);
            Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, client.CloseStatus); // 1001
            await client.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
            client.Dispose();
        }

        await disposed.WaitAsync(RawHttp.Timeout());
        Assert.Equal(0, server.OpenWebSockets);
        await Assert.ThrowsAnyAsync<SocketException>(async () => await RawHttp.ConnectAsync(server.EndPoint));
    }

    [Fact]
    public async Task OverTlsTheEchoWorksAndTheApplicationIsToldItIsSecure()
    {
        using var certificate = TestCertificate.Create();
        var secure = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using LeanWebSocketServer server = LeanWebSocketServer.Start(
            new LeanWebSocketServerOptions { Path = "/echo", Tls = new SslServerAuthenticationOptions { ServerCertificate = certificate } },
            (request, sender) =>
            {
                secure.TrySetResult(request.IsSecure);
                return LeanServers.Echo(sender);
            });
        Assert.Equal("wss", server.Uri.Scheme);
        using var client = new ClientWebSocket();
        client.Options.RemoteCertificateValidationCallback = (_, presented, _, _) => presented?.GetCertHashString() == certificate.GetCertHashString();
        await client.ConnectAsync(server.Uri, RawHttp.Timeout());
        Assert.True(await secure.Task.WaitAsync(RawHttp.Timeout()));
        foreach (int size in new[] { 5, 70_000, 1_000_000 })
        {
            byte[] payload = new byte[size];
            new Random(size).NextBytes(payload);
            Assert.Equal(payload, await LeanServers.EchoAsync(client, payload));
        }

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    [Fact]
    public async Task TheMessageApiClosesWith1000WhenTheApplicationReturnsAnd1011WhenItThrows()
    {
        await using LeanWebSocketServer server = LeanWebSocketServer.StartMessages(
            new LeanWebSocketServerOptions(),
            async (request, websocket) =>
            {
                using WebSocketMessage? message = await websocket.ReceiveAsync();
                if (request.Path == "/fail")
                {
                    throw new InvalidOperationException("the application failed");
                }

                await websocket.SendAsync(message!.Payload, message.Type);
            });
        using ClientWebSocket good = await LeanServers.ConnectAsync(new Uri($"ws://127.0.0.1:{server.EndPoint.Port}/ok"));
        Assert.Equal("once"u8.ToArray(), await LeanServers.EchoAsync(good, "once"u8.ToArray(), WebSocketMessageType.Text));
        ValueWebSocketReceiveResult end = await good.ReceiveAsync(new byte[16].AsMemory(), RawHttp.Timeout());
        Assert.Equal(WebSocketMessageType.Close, end.MessageType);
        Assert.Equal(WebSocketCloseStatus.NormalClosure, good.CloseStatus);

        using ClientWebSocket bad = await LeanServers.ConnectAsync(new Uri($"ws://127.0.0.1:{server.EndPoint.Port}/fail"));
        await bad.SendAsync("x"u8.ToArray(), WebSocketMessageType.Text, true, RawHttp.Timeout());
        end = await bad.ReceiveAsync(new byte[16].AsMemory(), RawHttp.Timeout());
        Assert.Equal(WebSocketMessageType.Close, end.MessageType);
        Assert.Equal(WebSocketCloseStatus.InternalServerError, bad.CloseStatus);
    }

    [Fact]
    public void OptionsOutOfRangeAreRefusedBeforeAnythingListens()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => LeanWebSocketServer.Start(new LeanWebSocketServerOptions { LoopCount = 0 }, (_, s) => LeanServers.Echo(s)));
        Assert.Throws<ArgumentOutOfRangeException>(() => LeanWebSocketServer.Start(new LeanWebSocketServerOptions { ReceiveBufferSize = 100 }, (_, s) => LeanServers.Echo(s)));
        Assert.Throws<ArgumentException>(() => LeanWebSocketServer.Start(new LeanWebSocketServerOptions { Path = "echo" }, (_, s) => LeanServers.Echo(s)));
    }

    [Fact]
    public async Task APortInUseFailsTheStartWithTheSocketsError()
    {
        await using LeanWebSocketServer first = LeanServers.StartEcho();
        SocketException error = Assert.Throws<SocketException>(() => LeanServers.StartEcho(configure: o => o.EndPoint = first.EndPoint));
        Assert.Equal(SocketError.AddressAlreadyInUse, error.SocketErrorCode);
    }

    [Fact]
    public async Task TheLoopsTimersPingAPeerThatSaysNothingAndGiveUpOneThatNeverAnswers()
    {
        var accept = new WebSocketAcceptOptions
        {
            Session = new WebSocketSessionOptions { KeepAliveInterval = TimeSpan.FromMilliseconds(200), KeepAliveTimeout = TimeSpan.FromMilliseconds(300) },
        };
        await using LeanWebSocketServer server = LeanServers.StartEcho(accept);
        using System.Net.Sockets.Socket socket = await RawHttp.ConnectAsync(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, server.EndPoint.Port));
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo")), RawHttp.Timeout());
        Assert.StartsWith("HTTP/1.1 101", await RawHttp.ReadHeadAsync(socket));

        // Silent and deaf: the loop's wheel fires the keep-alive (a Ping), then the timeout (a Close, and the end).
        var clock = System.Diagnostics.Stopwatch.StartNew();
        byte[] received = await RawHttp.ReadToEndAsync(socket);
        TimeSpan took = clock.Elapsed;
        var frames = WireFrames.Read(received, WebSocketRole.Client);
        Assert.Equal(WebSocketOpcode.Ping, frames[0].Opcode);
        Assert.Equal(WebSocketOpcode.Close, frames[^1].Opcode);
        Assert.True(took >= TimeSpan.FromMilliseconds(450), $"given up after {took.TotalMilliseconds:F0} ms, before the keep-alive and its timeout");
        for (int i = 0; i < 500 && server.OpenWebSockets > 0; i++)
        {
            await Task.Delay(10); // the count drops as the driver reports its end, right behind the connection's
        }

        Assert.Equal(0, server.OpenWebSockets);
    }
}
