using System.Net;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>
/// The core codec behind the demo server, against an independent peer: .NET's <see cref="ClientWebSocket"/>
/// (ManagedWebSocket), and raw sockets for what no well-behaved client sends. Loopback only, every wait bounded.
/// </summary>
public abstract class EchoServerInteropTests : IAsyncLifetime
{
    private (Uri Url, IPEndPoint EndPoint, IAsyncDisposable Host) _server;

    /// <summary>Starts the server under test: its echo's URL and endpoint, and what stops it.</summary>
    protected abstract Task<(Uri Url, IPEndPoint EndPoint, IAsyncDisposable Host)> StartAsync();

    public async Task InitializeAsync() => _server = await StartAsync();

    public async Task DisposeAsync() => await _server.Host.DisposeAsync();

    private static CancellationToken Timeout() => new CancellationTokenSource(TimeSpan.FromSeconds(20)).Token;

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(125)]
    [InlineData(126)]
    [InlineData(65535)]
    [InlineData(65536)]
    [InlineData(300_000)]
    public async Task ClientWebSocketGetsEveryBinaryMessageBack(int length)
    {
        using var client = new ClientWebSocket();
        await client.ConnectAsync(_server.Url, Timeout());
        byte[] message = new byte[length];
        new Random(length).NextBytes(message);

        await client.SendAsync(message, WebSocketMessageType.Binary, true, Timeout());
        var (type, echoed) = await ReceiveMessageAsync(client);

        Assert.Equal(WebSocketMessageType.Binary, type);
        Assert.Equal(message, echoed);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    [Fact]
    public async Task FragmentedTextCutInsideCharactersComesBackWhole()
    {
        using var client = new ClientWebSocket();
        await client.ConnectAsync(_server.Url, Timeout());
        byte[] text = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("κόσμε 😀 Grüße ", 50)));
        for (int offset = 0; offset < text.Length; offset += 7)
        {
            int count = Math.Min(7, text.Length - offset);
            await client.SendAsync(text.AsMemory(offset, count), WebSocketMessageType.Text, offset + count == text.Length, Timeout());
        }

        var (type, echoed) = await ReceiveMessageAsync(client);
        Assert.Equal(WebSocketMessageType.Text, type);
        Assert.Equal(text, echoed);
    }

    [Fact]
    public async Task CloseHandshakeEchoesTheStatusCode()
    {
        using var client = new ClientWebSocket();
        await client.ConnectAsync(_server.Url, Timeout());
        await client.CloseAsync((WebSocketCloseStatus)4001, "app close", Timeout());
        Assert.Equal(WebSocketState.Closed, client.State);
        Assert.Equal((WebSocketCloseStatus)4001, client.CloseStatus);
    }

    [Fact]
    public async Task FramesInTheSamePacketAsTheHandshakeAreNotLost()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(_server.EndPoint, Timeout());
        // Handshake and a masked "hi" text frame (FIN=1, Text, MASK=1, key 0) then a Close 1000, in one send.
        byte[] request = [.. Encoding.ASCII.GetBytes(Request()), 0x81, 0x82, 0, 0, 0, 0, (byte)'h', (byte)'i', 0x88, 0x82, 0, 0, 0, 0, 0x03, 0xE8];
        await socket.SendAsync(request, Timeout());
        byte[] response = await RawHttp.ReadToEndAsync(socket);
        int body = response.AsSpan().IndexOf("\r\n\r\n"u8) + 4;

        Assert.StartsWith("HTTP/1.1 101", Encoding.ASCII.GetString(response));
        Assert.Equal(new byte[] { 0x81, 0x02, (byte)'h', (byte)'i', 0x88, 0x02, 0x03, 0xE8 }, response[body..]);
    }

    [Theory]
    [InlineData("GET /echo HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "400")] // no Host
    [InlineData("GET /echo HTTP/1.0\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "400")] // HTTP/1.0
    [InlineData("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "426")]
    [InlineData("GET /echo HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n\r\n", "400")]
    [InlineData("GET /other HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n", "404")]
    public async Task BadHandshakesAreRefused(string request, string status)
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(_server.EndPoint, Timeout());
        await socket.SendAsync(Encoding.ASCII.GetBytes(request), Timeout());
        string response = await RawHttp.ReadHeadAsync(socket);
        Assert.StartsWith($"HTTP/1.1 {status}", response);
    }

    [Fact]
    public async Task OversizedRequestHeadIsRefusedWith431()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(_server.EndPoint, Timeout());
        string request = "GET /echo HTTP/1.1\r\nHost: x\r\nX-Filler: " + new string('a', 40_000) + "\r\n\r\n";
        await socket.SendAsync(Encoding.ASCII.GetBytes(request), Timeout());
        string response = await RawHttp.ReadHeadAsync(socket);
        Assert.StartsWith("HTTP/1.1 431", response);
    }

    [Fact]
    public async Task HandshakeAnswersWithTheRfcAcceptValue()
    {
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(_server.EndPoint, Timeout());
        await socket.SendAsync(Encoding.ASCII.GetBytes(Request()), Timeout());
        string head = await RawHttp.ReadHeadAsync(socket);
        Assert.Contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", head, StringComparison.Ordinal);
    }

    private static string Request() =>
        "GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n" +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";

    private static async Task<(WebSocketMessageType Type, byte[] Data)> ReceiveMessageAsync(ClientWebSocket client)
    {
        var data = new MemoryStream();
        byte[] buffer = new byte[16 * 1024];
        while (true)
        {
            var result = await client.ReceiveAsync(buffer, Timeout());
            data.Write(buffer, 0, result.Count);
            if (result.EndOfMessage)
            {
                return (result.MessageType, data.ToArray());
            }
        }
    }
}

/// <summary>The interop cases against the demo server on Kestrel.</summary>
public sealed class KestrelEchoServerInteropTests : EchoServerInteropTests
{
    protected override async Task<(Uri Url, IPEndPoint EndPoint, IAsyncDisposable Host)> StartAsync()
    {
        EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0 });
        return (server.Url, server.EndPoint, server);
    }
}

/// <summary>The interop cases against the demo server on the lean transport (<c>--transport lean</c>).</summary>
public sealed class LeanEchoServerInteropTests : EchoServerInteropTests
{
    protected override Task<(Uri Url, IPEndPoint EndPoint, IAsyncDisposable Host)> StartAsync()
    {
        LeanEchoServerHost server = LeanEchoServerHost.Start(new EchoServerOptions { Port = 0, Transport = "lean" });
        return Task.FromResult<(Uri, IPEndPoint, IAsyncDisposable)>((server.Url, server.EndPoint, server));
    }
}
