using System.Net;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using WebSocketCodec.Samples.WebSocketProxy;

namespace WebSocketCodec.AspNetCore.Tests.Tunnel;

/// <summary>Handshake-only mode (<see cref="WebSocketTunnelExtensions.MapWebSocketTunnel"/>) through the proxy sample:
/// clients over HTTP/2 and HTTP/1.1, the backend over HTTP/1.1, frames relayed untouched.</summary>
public sealed class TunnelTests
{
    [Theory]
    [InlineData(true, false)]
    [InlineData(true, true)]
    [InlineData(false, false)]
    [InlineData(false, true)]
    public async Task ClientsOverEitherProtocolReachAnHttp11Backend(bool http2, bool tls)
    {
        await using EchoServerHost backend = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0 });
        await using WebSocketProxyHost proxy = await WebSocketProxyHost.StartAsync(new WebSocketProxyOptions { Port = 0, Tls = tls, Backend = new Uri($"ws://127.0.0.1:{backend.BaseUrl.Port}") });
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        using ClientWebSocket client = http2 ? Http2Requests.Client() : new ClientWebSocket();
        if (!http2)
        {
            client.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        }

        await client.ConnectAsync(proxy.WebSocketUrl(EchoServerHost.EchoPath), http2 ? invoker : null, RawHttp.Timeout());
        await EchoRoundTrip.RunAsync(client);
        await client.CloseAsync((WebSocketCloseStatus)4000, "relayed", RawHttp.Timeout());
        Assert.Equal((WebSocketCloseStatus)4000, client.CloseStatus);
        Assert.Equal(1, backend.Statistics.Count(EchoStatistics.Http1Upgrade));
        Assert.Equal(0, backend.Statistics.Count(EchoStatistics.Http2ExtendedConnect));
    }

    [Fact]
    public async Task TheBackendsSubprotocolChoiceAndRefusalsReachTheClient()
    {
        await using KestrelHost backend = await KestrelHost.StartAsync(map: app =>
            app.MapWebSocket("/chat", (_, channel) => channel.CloseAsync(), o => { o.Subprotocols = ["v2", "v1"]; }));
        await using WebSocketProxyHost proxy = await WebSocketProxyHost.StartAsync(new WebSocketProxyOptions { Port = 0, Backend = new Uri($"ws://127.0.0.1:{backend.BaseUrl.Port}") });
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        using (WebSocketConnection channel = await WebSocketHttp2Client.ConnectAsync(invoker, proxy.WebSocketUrl("/chat"), new WebSocketClientOptions { Subprotocols = ["v1", "v2"] }))
        {
            Assert.Equal("v2", channel.Subprotocol);
            await channel.CloseAsync();
        }

        var missing = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, proxy.WebSocketUrl("/nothing")));
        Assert.Equal(404, missing.StatusCode);
    }

    [Fact]
    public async Task AnUnreachableBackendIsABadGateway()
    {
        int closedPort;
        using (var probe = new System.Net.Sockets.TcpListener(IPAddress.Loopback, 0))
        {
            probe.Start();
            closedPort = ((IPEndPoint)probe.LocalEndpoint).Port;
        }

        await using WebSocketProxyHost proxy = await WebSocketProxyHost.StartAsync(new WebSocketProxyOptions { Port = 0, Backend = new Uri($"ws://127.0.0.1:{closedPort}") });
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, proxy.WebSocketUrl("/echo")));
        Assert.Equal(502, error.StatusCode);
    }

    [Fact]
    public async Task AHandshakeTheApplicationLeavesUnansweredGets502AndBadHandshakesAreRefusedFirst()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(map: app => app.MapWebSocketTunnel("/t", _ => Task.CompletedTask), sharedPort: true);
        string head = await RawHttp.ExchangeAsync(host.EndPoint, RawHttp.Upgrade("/t"));
        Assert.StartsWith("HTTP/1.1 502", head);
        string badVersion = await RawHttp.ExchangeAsync(host.EndPoint, RawHttp.Upgrade("/t").Replace("Version: 13", "Version: 12", StringComparison.Ordinal));
        Assert.StartsWith("HTTP/1.1 426", badVersion);
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        using HttpResponseMessage response = await invoker.SendAsync(Http2Requests.ExtendedConnect(host.BaseUrl, "/t", version: "12"), RawHttp.Timeout());
        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
    }
}
