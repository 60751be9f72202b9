using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;

namespace WebSocketCodec.Lean.Tests.Handshake;

/// <summary>The lean transport's own HTTP/1.1 handshake: the head parsed however it arrives, the core's decision and
/// its refusals, the bounds on a head that is too long or too late.</summary>
public sealed class LeanHandshakeTests
{
    [Fact]
    public async Task AHeadSentByteByByteWithAFrameRightBehindItIsAcceptedAndTheFrameEchoed()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho();
        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        byte[] head = Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo"));
        for (int i = 0; i < head.Length - 1; i++)
        {
            await socket.SendAsync(head.AsMemory(i, 1), RawHttp.Timeout());
            await Task.Delay(i % 16 == 0 ? 5 : 0); // some bytes in reads of their own
        }

        // The head's last byte and a whole frame in one write: the frame is parsed from the same read.
        byte[] frame = WireFrames.Client(WebSocketOpcode.Text, "hello"u8);
        await socket.SendAsync((byte[])[head[^1], .. frame], RawHttp.Timeout());
        string answer = await RawHttp.ReadHeadAsync(socket);
        Assert.StartsWith("HTTP/1.1 101", answer, StringComparison.Ordinal);
        Assert.Contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", answer, StringComparison.Ordinal);
        byte[] echo = new byte[7];
        int read = 0;
        while (read < echo.Length)
        {
            read += await socket.ReceiveAsync(echo.AsMemory(read), RawHttp.Timeout());
        }

        Assert.Equal(WireFrames.Server(WebSocketOpcode.Text, "hello"u8), echo);
    }

    [Theory]
    [InlineData("GET /other HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "404")]
    [InlineData("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n", "400")]
    [InlineData("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "426")]
    [InlineData("POST /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "405")]
    [InlineData("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 a TLS hello to a cleartext port\r\n\r\n", "400")]
    public async Task ARequestTheCoreRefusesGetsItsStatusThenTheServersFin(string request, string status)
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho();
        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        await socket.SendAsync(Encoding.Latin1.GetBytes(request), RawHttp.Timeout());
        string answer = Encoding.ASCII.GetString(await RawHttp.ReadToEndAsync(socket)); // ends with the server's FIN
        Assert.StartsWith($"HTTP/1.1 {status}", answer, StringComparison.Ordinal);
        Assert.Contains("Connection: close", answer, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AHeadLongerThanTheBoundGets431()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho(new WebSocketAcceptOptions { MaxRequestHeadLength = 2048 });
        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo", $"X-Filler: {new string('a', 4000)}\r\n")), RawHttp.Timeout());
        string answer = Encoding.ASCII.GetString(await RawHttp.ReadToEndAsync(socket));
        Assert.StartsWith("HTTP/1.1 431", answer, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AClientThatSendsNoCompleteHeadInTimeGets408()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho(new WebSocketAcceptOptions { HandshakeTimeout = TimeSpan.FromSeconds(1) });
        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        await socket.SendAsync("GET /echo HTTP/1.1\r\nHost: x\r\n"u8.ToArray(), RawHttp.Timeout());
        string answer = Encoding.ASCII.GetString(await RawHttp.ReadToEndAsync(socket));
        Assert.StartsWith("HTTP/1.1 408", answer, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AListenerFactoryThatThrowsRefusesWith500AndIsReported()
    {
        var errors = new List<Exception>();
        await using LeanWebSocketServer server = LeanWebSocketServer.Start(
            new LeanWebSocketServerOptions { OnError = error => { lock (errors) { errors.Add(error); } } },
            (_, _) => throw new InvalidOperationException("no listener today"));
        string answer = await RawHttp.ExchangeAsync(server.EndPoint, RawHttp.Upgrade("/anything"));
        Assert.StartsWith("HTTP/1.1 500", answer, StringComparison.Ordinal);
        lock (errors)
        {
            Assert.Equal("no listener today", Assert.Single(errors).Message);
        }
    }

    [Fact]
    public async Task TheApplicationSeesTheRequestAndTheNegotiatedSubprotocol()
    {
        var seen = new TaskCompletionSource<LeanWebSocketRequest>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using LeanWebSocketServer server = LeanWebSocketServer.Start(
            new LeanWebSocketServerOptions { Accept = new WebSocketAcceptOptions { Subprotocols = ["chat.v2"] } },
            (request, sender) =>
            {
                seen.TrySetResult(request);
                return LeanServers.Echo(sender);
            });
        using var client = new ClientWebSocket();
        client.Options.AddSubProtocol("chat.v1");
        client.Options.AddSubProtocol("chat.v2");
        client.Options.SetRequestHeader("X-Tenant", "blue");
        await client.ConnectAsync(new Uri($"ws://127.0.0.1:{server.EndPoint.Port}/rooms/7?lang=en"), RawHttp.Timeout());
        LeanWebSocketRequest request = await seen.Task.WaitAsync(RawHttp.Timeout());
        Assert.Equal("chat.v2", client.SubProtocol);
        Assert.Equal("chat.v2", request.Subprotocol);
        Assert.Equal("/rooms/7", request.Path);
        Assert.Equal("/rooms/7?lang=en", request.Target);
        Assert.Equal("blue", request.Head["X-Tenant"]);
        Assert.Equal(System.Net.IPAddress.Loopback, request.RemoteEndPoint!.Address);
        Assert.False(request.IsSecure);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
    }

    [Fact]
    public async Task AFrameTheFactorySendsGoesOutBehindThe101()
    {
        await using LeanWebSocketServer server = LeanWebSocketServer.Start(
            new LeanWebSocketServerOptions(),
            (_, sender) =>
            {
                Assert.True(sender.TrySend(WebSocketOpcode.Text, "welcome"u8)); // before the websocket runs
                return LeanServers.Echo(sender);
            });
        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/")), RawHttp.Timeout());
        Assert.StartsWith("HTTP/1.1 101", await RawHttp.ReadHeadAsync(socket), StringComparison.Ordinal);
        byte[] expected = WireFrames.Server(WebSocketOpcode.Text, "welcome"u8);
        byte[] frame = new byte[expected.Length];
        for (int read = 0; read < frame.Length;)
        {
            read += await socket.ReceiveAsync(frame.AsMemory(read), RawHttp.Timeout());
        }

        Assert.Equal(expected, frame);
    }

    [Fact]
    public async Task AnInfiniteHandshakeTimeoutSetsNoDeadline()
    {
        await using LeanWebSocketServer server = LeanServers.StartEcho(new WebSocketAcceptOptions { HandshakeTimeout = Timeout.InfiniteTimeSpan });
        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        byte[] head = Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo"));
        await socket.SendAsync(head.AsMemory(0, 20), RawHttp.Timeout());
        await Task.Delay(TimeSpan.FromSeconds(1)); // four of the loop's deadline checks pass meanwhile
        await socket.SendAsync(head.AsMemory(20), RawHttp.Timeout());
        Assert.StartsWith("HTTP/1.1 101", await RawHttp.ReadHeadAsync(socket), StringComparison.Ordinal);
    }
}
