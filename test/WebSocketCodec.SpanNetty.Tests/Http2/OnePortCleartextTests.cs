using System.Net;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// HTTP/1.1 and HTTP/2 prior knowledge on one cleartext SpanNetty port (<see cref="Http2PriorKnowledgeDetector"/>):
/// .NET's <see cref="ClientWebSocket"/> upgrades over HTTP/1.1 to our echo and <see cref="HttpClient"/> speaks h2c to a
/// minimal HTTP/2 server, on the same port; a preface sent byte by byte is still HTTP/2; a silent client and junk are
/// closed, reaching neither pipeline.
/// </summary>
public sealed class OnePortCleartextTests : LeakCheckedTests
{
    [Fact]
    public async Task AWebSocketUpgradeAndAnH2cRequestShareThePort()
    {
        await using OnePortServer server = await OnePortServer.StartAsync();

        using (var webSocket = new ClientWebSocket())
        {
            await webSocket.ConnectAsync(new Uri($"ws://127.0.0.1:{server.Port}/ws"), Timeout());
            await webSocket.SendAsync("over HTTP/1.1"u8.ToArray(), WebSocketMessageType.Text, endOfMessage: true, Timeout());
            byte[] buffer = new byte[64];
            WebSocketReceiveResult echoed = await webSocket.ReceiveAsync(buffer, Timeout());
            Assert.Equal("over HTTP/1.1", Encoding.UTF8.GetString(buffer, 0, echoed.Count));
            await webSocket.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        }

        using (var client = new HttpClient(new SocketsHttpHandler()))
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, $"http://127.0.0.1:{server.Port}/")
            {
                Version = HttpVersion.Version20,
                VersionPolicy = HttpVersionPolicy.RequestVersionExact, // h2c with prior knowledge
            };
            using HttpResponseMessage response = await client.SendAsync(request, Timeout());
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(HttpVersion.Version20, response.Version);
        }

        Assert.Equal(1, server.Http1Connections);
        Assert.Equal(1, server.Http2Connections);
    }

    [Fact]
    public async Task APrefaceSentByteByByteIsAnsweredWithTheServersSettings()
    {
        await using OnePortServer server = await OnePortServer.StartAsync();
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(server.EndPoint);
        foreach (byte b in "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8.ToArray())
        {
            await socket.SendAsync(new[] { b }, SocketFlags.None);
            await Task.Delay(2); // pacing, so the bytes tend to arrive in separate reads (the embedded tests make sure)
        }

        await socket.SendAsync(new byte[] { 0, 0, 0, 4, 0, 0, 0, 0, 0 }, SocketFlags.None); // the client's SETTINGS
        byte[] header = await ReadExactlyAsync(socket, 9);
        Assert.Equal(4, header[3]); // the server's first frame: SETTINGS (RFC 9113 §3.4)
        Assert.Equal(0, header[4] & 1); // not an ACK
        Assert.Equal(1, server.Http2Connections);
        Assert.Equal(0, server.Http1Connections);
    }

    [Theory]
    [InlineData(0)] // nothing at all
    [InlineData(10)] // a prefix of the preface, then nothing
    public async Task ASilentClientIsClosedAfterTheDetectionTimeout(int prefaceBytes)
    {
        await using OnePortServer server = await OnePortServer.StartAsync(detectionTimeout: TimeSpan.FromMilliseconds(200));
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(server.EndPoint);
        if (prefaceBytes > 0)
        {
            await socket.SendAsync("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8.ToArray().AsMemory(0, prefaceBytes), SocketFlags.None);
        }

        Assert.Equal(0, await ReadToEndAsync(socket)); // closed by the server, with nothing said
        Assert.Equal(0, server.Http1Connections + server.Http2Connections);
    }

    [Theory]
    [InlineData(new byte[] { 0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03 })] // TLS on the cleartext port
    [InlineData(new byte[] { (byte)'G', (byte)'E', (byte)'T', (byte)'\t', (byte)'/' })]
    [InlineData(new byte[] { (byte)'\r', (byte)'\n', (byte)'G', (byte)'E', (byte)'T', (byte)' ' })]
    public async Task JunkIsRefused(byte[] junk)
    {
        await using OnePortServer server = await OnePortServer.StartAsync();
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(server.EndPoint);
        await socket.SendAsync(junk, SocketFlags.None);
        Assert.Equal(0, await ReadToEndAsync(socket));
        Assert.Equal(0, server.Http1Connections + server.Http2Connections);
    }

    private static CancellationToken Timeout() => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;

    private static async Task<byte[]> ReadExactlyAsync(Socket socket, int count)
    {
        byte[] buffer = new byte[count];
        int read = 0;
        while (read < count)
        {
            int n = await socket.ReceiveAsync(buffer.AsMemory(read), SocketFlags.None, Timeout());
            Assert.NotEqual(0, n);
            read += n;
        }

        return buffer;
    }

    /// <summary>Reads until the server closes (a reset counts as closed); returns the bytes the server sent.</summary>
    private static async Task<int> ReadToEndAsync(Socket socket)
    {
        byte[] buffer = new byte[256];
        int total = 0;
        try
        {
            int n;
            while ((n = await socket.ReceiveAsync(buffer, SocketFlags.None, Timeout())) > 0)
            {
                total += n;
            }
        }
        catch (SocketException error) when (error.SocketErrorCode == SocketError.ConnectionReset)
        {
        }

        return total;
    }
}
