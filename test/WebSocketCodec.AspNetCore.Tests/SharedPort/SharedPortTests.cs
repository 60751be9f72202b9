using System.Net;
using System.Net.Sockets;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.AspNetCore.Tests.SharedPort;

/// <summary>HTTP/1.1 and HTTP/2 prior knowledge on one cleartext port: each connection goes where its first bytes say,
/// nothing pretends to be TLS (the scheme stays http), and a connection that says nothing is closed.</summary>
public sealed class SharedPortTests
{
    private static Task<KestrelHost> StartAsync(TimeSpan? detectionTimeout = null) => KestrelHost.StartAsync(
        map: app =>
        {
            app.MapGet("/scheme", (HttpContext context) => $"{context.Request.Scheme} {context.Request.Protocol} {context.Request.IsHttps}");
            app.MapWebSocket("/ws", async (context, channel) =>
            {
                string seen = $"{context.Request.Scheme} {context.Request.Protocol}";
                await channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, (s, _, _) => s.Send(WebSocketOpcode.Text, Encoding.UTF8.GetBytes(seen))));
            });
        },
        sharedPort: true,
        detectionTimeout: detectionTimeout);

    [Fact]
    public async Task TheSchemeStaysHttpOverBothProtocols()
    {
        await using KestrelHost host = await StartAsync();
        using var http2 = new HttpClient(Http2Requests.Handler()) { DefaultRequestVersion = HttpVersion.Version20, DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact };
        using var http11 = new HttpClient() { DefaultRequestVersion = HttpVersion.Version11, DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact };
        Assert.Equal("http HTTP/2 False", await http2.GetStringAsync(new Uri(host.BaseUrl, "/scheme")));
        Assert.Equal("http HTTP/1.1 False", await http11.GetStringAsync(new Uri(host.BaseUrl, "/scheme")));

        await using RawWebSocket overHttp2 = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws");
        await overHttp2.AssertEchoAsync("http HTTP/2");
    }

    [Fact]
    public async Task APrefaceArrivingInPiecesIsStillHttp2()
    {
        await using KestrelHost host = await StartAsync();
        using Socket socket = await RawHttp.ConnectAsync(host.EndPoint);
        byte[] preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8.ToArray();
        foreach (byte[] piece in new[] { preface[..1], preface[1..5], preface[5..23], preface[23..] })
        {
            await socket.SendAsync(piece, RawHttp.Timeout());
            await Task.Delay(50); // pacing: each piece of the preface arrives in its own read
        }

        await socket.SendAsync(new byte[] { 0, 0, 0, 0x4, 0, 0, 0, 0, 0 }, RawHttp.Timeout()); // empty SETTINGS
        byte[] header = new byte[9];
        await socket.ReceiveAsync(header, RawHttp.Timeout()); // the server's SETTINGS comes first
        Assert.Equal(0x4, header[3]);
    }

    [Theory]
    [InlineData("POST /scheme HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405")]
    [InlineData("PRI /scheme HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 405")]
    [InlineData("GET /scheme HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 200")]
    public async Task AnythingElseIsHttp11(string request, string expected)
    {
        await using KestrelHost host = await StartAsync();
        string head = await RawHttp.ExchangeAsync(host.EndPoint, request);
        Assert.StartsWith(expected, head);
    }

    [Fact]
    public async Task ASilentConnectionIsClosedAfterTheDetectionTimeout()
    {
        await using KestrelHost host = await StartAsync(detectionTimeout: TimeSpan.FromMilliseconds(300));
        using Socket silent = await RawHttp.ConnectAsync(host.EndPoint);
        using Socket halfPreface = await RawHttp.ConnectAsync(host.EndPoint);
        await halfPreface.SendAsync("PRI * HTTP/2"u8.ToArray(), RawHttp.Timeout());
        byte[] buffer = new byte[16];
        Assert.Equal(0, await ReceiveOrResetAsync(silent, buffer));
        Assert.Equal(0, await ReceiveOrResetAsync(halfPreface, buffer));

        // The port still serves.
        Assert.StartsWith("HTTP/1.1 200", await RawHttp.ExchangeAsync(host.EndPoint, "GET /scheme HTTP/1.1\r\nHost: x\r\n\r\n"));
    }

    private static async Task<int> ReceiveOrResetAsync(Socket socket, byte[] buffer)
    {
        try
        {
            return await socket.ReceiveAsync(buffer, RawHttp.Timeout());
        }
        catch (SocketException error) when (error.SocketErrorCode == SocketError.ConnectionReset)
        {
            return 0;
        }
    }
}
