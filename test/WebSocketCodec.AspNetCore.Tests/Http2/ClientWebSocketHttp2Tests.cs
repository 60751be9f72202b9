using System.Net;
using System.Net.WebSockets;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>.NET's <see cref="ClientWebSocket"/> over HTTP/2 (extended CONNECT, <c>RequestVersionExact</c>) against
/// the echo server, in cleartext (prior knowledge on the port that also serves HTTP/1.1) and over TLS (ALPN h2).</summary>
public sealed class ClientWebSocketHttp2Tests
{
    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EchoesEveryLengthOverHttp2(bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls });
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        using ClientWebSocket client = Http2Requests.Client();
        await client.ConnectAsync(server.Url, invoker, RawHttp.Timeout());
        Assert.Equal(HttpStatusCode.OK, client.HttpStatusCode);
        await EchoRoundTrip.RunAsync(client);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
        Assert.Equal(1, server.Statistics.Count(EchoStatistics.Http2ExtendedConnect));
        Assert.Equal(0, server.Statistics.Count(EchoStatistics.Http1Upgrade));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task TheSamePortServesHttp11AndHttp2(bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls });
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        using ClientWebSocket overHttp2 = Http2Requests.Client();
        using var overHttp11 = new ClientWebSocket();
        overHttp11.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
        overHttp11.Options.CollectHttpResponseDetails = true;
        await overHttp2.ConnectAsync(server.Url, invoker, RawHttp.Timeout());
        await overHttp11.ConnectAsync(server.Url, RawHttp.Timeout());
        Assert.Equal(HttpStatusCode.SwitchingProtocols, overHttp11.HttpStatusCode);
        foreach (ClientWebSocket client in new[] { overHttp2, overHttp11 })
        {
            await client.SendAsync("same port"u8.ToArray(), WebSocketMessageType.Text, true, RawHttp.Timeout());
            byte[] buffer = new byte[64];
            WebSocketReceiveResult result = await client.ReceiveAsync(buffer, RawHttp.Timeout());
            Assert.Equal("same port", System.Text.Encoding.UTF8.GetString(buffer, 0, result.Count));
            await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
        }

        Assert.Equal(1, server.Statistics.Count(EchoStatistics.Http2ExtendedConnect));
        Assert.Equal(1, server.Statistics.Count(EchoStatistics.Http1Upgrade));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task StoppingTheServerClosesEveryWebSocketWith1001AndWaitsForTheAnswer(bool http2)
    {
        var ended = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket("/ws", async (_, channel) =>
            {
                try
                {
                    ended.TrySetResult(await channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (_, _, _) => { })));
                }
                catch (Exception error)
                {
                    ended.TrySetException(error); // the test shows it instead of waiting for ever
                    throw;
                }
            }),
            sharedPort: true);
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        using ClientWebSocket client = http2 ? Http2Requests.Client() : new ClientWebSocket();
        await client.ConnectAsync(host.WebSocketUrl("/ws"), http2 ? invoker : null, RawHttp.Timeout());
        byte[] buffer = new byte[64];
        Task<WebSocketReceiveResult> receive = client.ReceiveAsync(buffer, RawHttp.Timeout());
        Task stop = host.DisposeAsync().AsTask();
        WebSocketReceiveResult result = await receive;
        Assert.Equal(WebSocketMessageType.Close, result.MessageType);
        Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, result.CloseStatus);

        // A slow answer still completes the close handshake: the server waits for it before Kestrel stops. The delay
        // is the scenario (the client answers late on purpose); the Close the server received, below, proves it waited.
        await Task.Delay(1500);
        Assert.False(stop.IsCompleted);
        await client.CloseOutputAsync(WebSocketCloseStatus.EndpointUnavailable, "bye", RawHttp.Timeout());
        await stop.WaitAsync(TimeSpan.FromSeconds(20));
        WebSocketCloseInfo info = await ended.Task.WaitAsync(TimeSpan.FromSeconds(30));
        Assert.True(info.IsClean, info.ToString());
        Assert.Equal((CloseStatus)1001, info.SentStatus);
        Assert.Equal((CloseStatus)1001, info.ReceivedStatus);
    }

    [Fact]
    public async Task ManyWebSocketsShareOneConnection()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0 });
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        var clients = new List<ClientWebSocket>();
        try
        {
            for (int i = 0; i < 100; i++)
            {
                ClientWebSocket client = Http2Requests.Client();
                clients.Add(client);
                await client.ConnectAsync(server.Url, invoker, RawHttp.Timeout());
            }

            await Task.WhenAll(clients.Select(async (client, index) =>
            {
                for (int round = 0; round < 5; round++)
                {
                    byte[] message = BitConverter.GetBytes(index * 1000 + round);
                    await client.SendAsync(message, WebSocketMessageType.Binary, true, RawHttp.Timeout());
                    byte[] buffer = new byte[16];
                    WebSocketReceiveResult result = await client.ReceiveAsync(buffer, RawHttp.Timeout());
                    Assert.Equal(message, buffer[..result.Count]);
                }

                await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
            }));
            Assert.Equal(100, server.Statistics.Count(EchoStatistics.Http2ExtendedConnect));
        }
        finally
        {
            clients.ForEach(client => client.Dispose());
        }
    }
}
