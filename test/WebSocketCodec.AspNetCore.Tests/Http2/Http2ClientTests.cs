using System.Collections.Concurrent;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>Our HTTP/2 client (<see cref="WebSocketHttp2Client"/>) against our server and ASP.NET Core's own
/// websockets, h2c and TLS; many websockets on one connection; every way the handshake can fail.</summary>
public sealed class Http2ClientTests
{
    private static readonly SslClientAuthenticationOptions Trusting = new() { RemoteCertificateValidationCallback = (_, _, _, _) => true };

    [Theory]
    [InlineData("ours", false)]
    [InlineData("ours", true)]
    [InlineData("builtin", false)]
    [InlineData("builtin", true)]
    public async Task EchoesEveryLengthOverHttp2(string codec, bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Codec = codec, Tls = tls });
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(Trusting));
        await using MessageWebSocket socket = await WebSocketHttp2Client.ConnectMessagesAsync(invoker, server.Url);
        await EchoRoundTrip.RunAsync(socket);
        WebSocketCloseInfo info = await socket.CloseAsync((CloseStatus)1000, "bye", RawHttp.Timeout());
        Assert.True(info.IsClean, info.ToString());
        Assert.Equal(1, server.Statistics.Count(EchoStatistics.Http2ExtendedConnect));
    }

    [Fact]
    public async Task FiftyWebSocketsShareOneConnection()
    {
        var connections = new ConcurrentDictionary<string, int>();
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket("/ws", (context, sender) =>
            {
                connections.AddOrUpdate(context.Connection.Id, 1, static (_, n) => n + 1);
                return new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) => s.Send(WebSocketOpcode.Binary, payload));
            }),
            sharedPort: true);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var sockets = await Task.WhenAll(Enumerable.Range(0, 50).Select(_ => WebSocketHttp2Client.ConnectMessagesAsync(invoker, host.WebSocketUrl("/ws"))));
        try
        {
            await Task.WhenAll(sockets.Select(async (socket, index) =>
            {
                byte[] message = BitConverter.GetBytes(index);
                await socket.SendAsync(message, WebSocketMessageType.Binary);
                using WebSocketMessage? echo = await socket.ReceiveAsync(RawHttp.Timeout());
                Assert.Equal(message, echo!.Payload.ToArray());
                Assert.True((await socket.CloseAsync((CloseStatus)1000, null, RawHttp.Timeout())).IsClean);
            }));
        }
        finally
        {
            foreach (MessageWebSocket socket in sockets)
            {
                await socket.DisposeAsync();
            }
        }

        Assert.Equal(50, Assert.Single(connections).Value);
    }

    [Fact]
    public async Task ARefusalCarriesTheStatus()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket("/ws", (_, channel) => Task.CompletedTask, o => { o.AllowedOrigins = ["https://good.example"]; }),
            sharedPort: true);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var options = new WebSocketClientOptions { Headers = [new("origin", "https://evil.example")] };
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, host.WebSocketUrl("/ws"), options));
        Assert.Equal(403, error.StatusCode);
        var missing = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, host.WebSocketUrl("/nothing-here")));
        Assert.Equal(404, missing.StatusCode);
    }

    [Fact]
    public async Task ASubprotocolThatWasNotOfferedFailsTheHandshake()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.Map("/rogue", async context =>
            {
                context.Response.Headers["sec-websocket-protocol"] = "rogue";
                await using Stream stream = await context.Features.Get<IHttpExtendedConnectFeature>()!.AcceptAsync();
                await stream.ReadAsync(new byte[1], context.RequestAborted).AsTask().ContinueWith(static _ => { }, TaskScheduler.Default);
            }),
            sharedPort: true);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var options = new WebSocketClientOptions { Subprotocols = ["chat"] };
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, host.WebSocketUrl("/rogue"), options));
        Assert.Contains("rogue", error.Message);
    }

    [Fact]
    public async Task TheSelectedSubprotocolIsReported()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket("/ws", (_, channel) => channel.CloseAsync(), o => { o.Subprotocols = ["v2", "v1"]; }),
            sharedPort: true);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        using WebSocketConnection channel = await WebSocketHttp2Client.ConnectAsync(invoker, host.WebSocketUrl("/ws"), new WebSocketClientOptions { Subprotocols = ["v1", "v2"] });
        Assert.Equal("v2", channel.Subprotocol);
        await channel.CloseAsync();
    }

    [Fact]
    public async Task AServerWithoutExtendedConnectGetsAClearError()
    {
        // A bare HTTP/2 server whose SETTINGS do not include SETTINGS_ENABLE_CONNECT_PROTOCOL.
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        Task server = Task.Run(async () =>
        {
            using Socket peer = await listener.AcceptSocketAsync(stop.Token);
            await peer.SendAsync(new byte[] { 0, 0, 0, 0x4, 0, 0, 0, 0, 0 }, stop.Token);
            byte[] sink = new byte[4096];
            while (await peer.ReceiveAsync(sink, stop.Token) > 0)
            {
            }
        });
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var uri = new Uri($"ws://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}/ws");
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, uri));
        Assert.Contains("SETTINGS_ENABLE_CONNECT_PROTOCOL", error.Message); // not the handshake timeout's message
        await stop.CancelAsync();
        await server.ContinueWith(static _ => { }, TaskScheduler.Default);
    }

    [Fact]
    public async Task ASilentServerTimesOut()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start(); // accepts TCP (backlog) but never speaks
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var uri = new Uri($"ws://127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}/ws");
        var options = new WebSocketClientOptions { HandshakeTimeout = TimeSpan.FromMilliseconds(500) };
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, uri, options));
        Assert.Contains("did not finish within", error.Message);
    }
}
