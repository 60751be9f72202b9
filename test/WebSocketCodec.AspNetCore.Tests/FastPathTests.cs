using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary>The ConnectionHandler fast path: our own span handshake on Kestrel's connection pipes.</summary>
public sealed class FastPathTests : IAsyncLifetime
{
    private KestrelHost _host = null!;

    public async Task InitializeAsync() =>
        _host = await KestrelHost.StartAsync(listen: listen => listen.UseWebSockets(
            (_, channel) => channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo)),
            path => path == "/fast",
            o => { o.HandshakeTimeout = TimeSpan.FromSeconds(2); o.MaxConcurrentWebSockets = 2; }));

    public async Task DisposeAsync() => await _host.DisposeAsync();

    private static void Echo(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);

    [Theory]
    [InlineData(0)]
    [InlineData(125)]
    [InlineData(126)]
    [InlineData(65_536)]
    [InlineData(70_000)]
    public async Task EchoesOverTheFastPath(int length)
    {
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(_host.WebSocketUrl("/fast"));
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        await socket.SendAsync(payload, WebSocketMessageType.Binary);
        using WebSocketMessage? echo = await socket.ReceiveAsync(RawHttp.Timeout());
        Assert.Equal(payload, echo!.Payload.ToArray());
        Assert.True((await socket.CloseAsync((CloseStatus)1000, null, RawHttp.Timeout())).IsClean);
    }

    [Theory]
    [InlineData("GET /other HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "404")]
    [InlineData("GET /fast HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "400")]
    [InlineData("GET /fast HTTP/1.1\r\nHost: a\r\nHost: b\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "400")]
    [InlineData("GET /fast HTTP/1.0\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "400")]
    [InlineData("GET /fast HTTP/1.1\nHost: x\n\n", "400")]
    [InlineData("GET /fast HTTP/1.1\r\nHost : x\r\n\r\n", "400")]
    [InlineData("GET /fast HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 7\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "426")]
    [InlineData("PUT /fast HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "405")]
    public async Task BadHandshakesGetTheirStatusAndTheConnectionCloses(string request, string status)
    {
        using Socket socket = await RawHttp.ConnectAsync(_host.EndPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(request), RawHttp.Timeout());
        string response = Encoding.ASCII.GetString(await RawHttp.ReadToEndAsync(socket));
        Assert.StartsWith($"HTTP/1.1 {status} ", response);
    }

    [Fact]
    public async Task AnOversizedHeadGets431()
    {
        using Socket socket = await RawHttp.ConnectAsync(_host.EndPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes("GET /fast HTTP/1.1\r\nHost: x\r\nX-Filler: " + new string('a', 9000)), RawHttp.Timeout());
        Assert.StartsWith("HTTP/1.1 431 ", await RawHttp.ReadHeadAsync(socket));
    }

    [Fact]
    public async Task ASilentClientIsDroppedAfterTheHandshakeTimeout()
    {
        using Socket socket = await RawHttp.ConnectAsync(_host.EndPoint);
        await socket.SendAsync("GET /fast HTTP/1.1\r\n"u8.ToArray(), RawHttp.Timeout());
        string response = Encoding.ASCII.GetString(await RawHttp.ReadToEndAsync(socket));
        Assert.StartsWith("HTTP/1.1 408 ", response); // answered as Kestrel answers its request-headers timeout, then closed
    }

    [Fact]
    public async Task FramesSentWithTheHandshakeAreNotLost()
    {
        using Socket socket = await RawHttp.ConnectAsync(_host.EndPoint);
        byte[] request = [.. Encoding.ASCII.GetBytes(RawHttp.Upgrade("/fast")), 0x81, 0x82, 0, 0, 0, 0, (byte)'h', (byte)'i', 0x88, 0x82, 0, 0, 0, 0, 0x03, 0xE8];
        await socket.SendAsync(request, RawHttp.Timeout());
        byte[] response = await RawHttp.ReadToEndAsync(socket);
        int body = response.AsSpan().IndexOf("\r\n\r\n"u8) + 4;
        Assert.StartsWith("HTTP/1.1 101", Encoding.ASCII.GetString(response));
        Assert.Equal(new byte[] { 0x81, 0x02, (byte)'h', (byte)'i', 0x88, 0x02, 0x03, 0xE8 }, response[body..]);
    }

    [Fact]
    public async Task ConnectionsOverTheCapGet503()
    {
        await using MessageWebSocket first = await WebSocketClient.ConnectMessagesAsync(_host.WebSocketUrl("/fast"));
        await using MessageWebSocket second = await WebSocketClient.ConnectMessagesAsync(_host.WebSocketUrl("/fast"));
        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketClient.ConnectAsync(_host.WebSocketUrl("/fast")));
        Assert.Equal(503, refused.StatusCode);
        await first.CloseAsync((CloseStatus)1000, null, RawHttp.Timeout());
    }
}
