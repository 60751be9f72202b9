using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary><see cref="WebSocketAcceptOptions.MaxConcurrentWebSockets"/> on the endpoint: HTTP/1.1 and HTTP/2
/// websockets count together, the one beyond gets 503 and is not upgraded, and a closed one frees its place.</summary>
public sealed class ConcurrencyCapTests
{
    [Fact]
    public async Task TheEndpointRefusesWebSocketsBeyondTheCapWith503UntilOneCloses()
    {
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls: false).Build();
        app.MapWebSocketMessages("/capped", async (context, socket) =>
        {
            while (await socket.ReceiveAsync(context.RequestAborted) is { } message)
            {
                using (message)
                {
                    await socket.SendAsync(message.Payload, message.Type, context.RequestAborted);
                }
            }
        }, o => { o.MaxConcurrentWebSockets = 2; });
        await app.StartAsync();
        try
        {
            var url = new Uri($"ws://{SampleHosting.BaseUrl(app).Authority}/capped");
            using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
            using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
            await using MessageWebSocket overHttp1 = await WebSocketClient.ConnectMessagesAsync(url, cancellationToken: bound.Token);
            WebSocketConnection overHttp2 = await WebSocketHttp2Client.ConnectAsync(invoker, url, cancellationToken: bound.Token);
            await using MessageWebSocket second = overHttp2.RunMessages(cancellationToken: bound.Token);

            var refusedH1 = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketClient.ConnectAsync(url, cancellationToken: bound.Token));
            Assert.Equal(503, refusedH1.StatusCode);
            var refusedH2 = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketHttp2Client.ConnectAsync(invoker, url, cancellationToken: bound.Token));
            Assert.Equal(503, refusedH2.StatusCode);

            // The open ones are still served, and closing one lets the next in.
            await second.SendTextAsync("still here", bound.Token);
            using (WebSocketMessage? echo = await second.ReceiveAsync(bound.Token))
            {
                Assert.Equal("still here", echo!.GetText());
            }

            await second.CloseAsync((CloseStatus)1000, null, bound.Token);
            await using MessageWebSocket third = await RetryUntilAcceptedAsync(url, bound.Token);
            await third.SendTextAsync("in", bound.Token);
            using WebSocketMessage? reply = await third.ReceiveAsync(bound.Token);
            Assert.Equal("in", reply!.GetText());
            await third.CloseAsync((CloseStatus)1000, null, bound.Token);
            await overHttp1.CloseAsync((CloseStatus)1000, null, bound.Token);
        }
        finally
        {
            await app.StopAsync();
            await app.DisposeAsync();
        }
    }

    /// <summary>The server frees the place when its end of the closed websocket returns, a moment after the client
    /// saw the close: a refusal in that moment is retried (bounded by the token).</summary>
    private static async Task<MessageWebSocket> RetryUntilAcceptedAsync(Uri url, CancellationToken cancellation)
    {
        while (true)
        {
            try
            {
                return await WebSocketClient.ConnectMessagesAsync(url, cancellationToken: cancellation);
            }
            catch (WebSocketHandshakeException refused) when (refused.StatusCode == 503)
            {
                await Task.Yield();
            }
        }
    }

    [Fact]
    public void ACapBelowOneIsRefusedWhenMapped()
    {
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls: false).Build();
        Assert.Throws<ArgumentOutOfRangeException>(() =>
            app.MapWebSocket("/none", (_, _) => Task.CompletedTask, o => { o.MaxConcurrentWebSockets = 0; }));
    }
}
