using System.Net.WebSockets;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary>The Kestrel endpoint: every handshake rule with its status, negotiation, the HttpContext, shutdown.</summary>
public sealed class EndpointTests : IAsyncLifetime
{
    private KestrelHost _host = null!;

    public async Task InitializeAsync()
    {
        Action<WebSocketAcceptOptions> options = o => { o.AllowedOrigins = ["https://good.example"]; o.Subprotocols = ["v2.chat", "chat"]; };
        _host = await KestrelHost.StartAsync(app =>
        {
            app.MapWebSocket("/ws", (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo), options);
            app.MapWebSocket("/returns", (_, _) => Task.CompletedTask);
            app.MapWebSocket("/throws", Task (HttpContext _, WebSocketConnection _) => throw new InvalidOperationException("application bug"));
            app.MapWebSocketMessages("/rooms/{room}", async (context, socket) =>
            {
                await socket.SendTextAsync($"room {context.GetRouteValue("room")} via {context.Request.Protocol}");
                using WebSocketMessage? message = await socket.ReceiveAsync();
            });
        });
    }

    public async Task DisposeAsync() => await _host.DisposeAsync();

    private static void Echo(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);

    [Theory]
    [InlineData("POST", "HTTP/1.1", "", "405")]
    [InlineData("GET", "HTTP/1.0", "", "400")]
    [InlineData("GET", "HTTP/1.1", "Sec-WebSocket-Version: 8\r\n", "426")]
    [InlineData("GET", "HTTP/1.1", "Origin: https://evil.example\r\n", "403")]
    [InlineData("GET", "HTTP/1.1", "Sec-WebSocket-Protocol: chat, bad token\r\n", "400")]
    public async Task BadHandshakesGetTheirStatus(string method, string version, string extra, string status)
    {
        string request = $"{method} /ws {version}\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + (extra.StartsWith("Sec-WebSocket-Version", StringComparison.Ordinal) ? "" : "Sec-WebSocket-Version: 13\r\n")
            + $"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n{extra}" + (method == "POST" ? "Content-Length: 0\r\n" : "") + "\r\n";
        string head = await RawHttp.ExchangeAsync(_host.EndPoint, request);
        Assert.StartsWith($"HTTP/1.1 {status} ", head);
        if (status == "426")
        {
            Assert.Contains("Sec-WebSocket-Version: 13\r\n", head, StringComparison.Ordinal);
        }

        if (status == "405")
        {
            Assert.Contains("Allow: GET\r\n", head, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task MissingKeyIsRefused()
    {
        string request = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n";
        Assert.StartsWith("HTTP/1.1 400 ", await RawHttp.ExchangeAsync(_host.EndPoint, request));
    }

    [Fact]
    public async Task AllowedOriginServerPreferredSubprotocolAndDeflateDeclined()
    {
        string head = await RawHttp.ExchangeAsync(_host.EndPoint, RawHttp.Upgrade("/ws",
            "Origin: https://GOOD.example\r\nSec-WebSocket-Protocol: chat, v2.chat\r\n" +
            "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\nConnection: keep-alive, Upgrade\r\n"));
        Assert.StartsWith("HTTP/1.1 101 ", head);
        Assert.Contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", head, StringComparison.Ordinal);
        Assert.Contains("Sec-WebSocket-Protocol: v2.chat\r\n", head, StringComparison.Ordinal);
        Assert.DoesNotContain("Sec-WebSocket-Extensions", head, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public async Task TheApplicationSeesTheHttpContext()
    {
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(_host.WebSocketUrl("/rooms/blue"));
        using WebSocketMessage? greeting = await socket.ReceiveAsync(RawHttp.Timeout());
        Assert.Equal("room blue via HTTP/1.1", greeting!.GetText());
        await socket.SendTextAsync("bye");
        WebSocketCloseInfo info = await socket.Completion.WaitAsync(RawHttp.Timeout());
        Assert.Equal((CloseStatus)1000, info.ReceivedStatus); // the application returned: the endpoint closed with 1000
        Assert.True(info.IsClean);
    }

    [Fact]
    public async Task ClientSubprotocolCheckAndEcho()
    {
        var options = new WebSocketClientOptions { Subprotocols = ["chat"], Headers = [new("Origin", "https://good.example")] };
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(_host.WebSocketUrl("/ws"), options);
        Assert.Equal("chat", socket.Subprotocol);
        await socket.SendTextAsync("ping?");
        using WebSocketMessage? echo = await socket.ReceiveAsync(RawHttp.Timeout());
        Assert.Equal("ping?", echo!.GetText());
        Assert.True((await socket.CloseAsync((CloseStatus)1000, null, RawHttp.Timeout())).IsClean);
    }

    [Theory]
    [InlineData("/returns", 1000)]
    [InlineData("/throws", 1011)]
    public async Task AnApplicationThatNeverRunsTheWebSocketStillClosesItProperly(string path, int status)
    {
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(_host.WebSocketUrl(path));
        Assert.Null(await socket.ReceiveAsync(RawHttp.Timeout()));
        WebSocketCloseInfo info = await socket.Completion;
        Assert.Equal((CloseStatus)status, info.ReceivedStatus);
        Assert.True(info.IsClean);
    }

    [Fact]
    public async Task ARefusedClientGetsTheStatus()
    {
        var options = new WebSocketClientOptions { Headers = [new("Origin", "https://evil.example")] };
        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketClient.ConnectAsync(_host.WebSocketUrl("/ws"), options));
        Assert.Equal(403, refused.StatusCode);
    }

    [Fact]
    public async Task ShutdownClosesOpenWebSocketsWith1001()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(app =>
            app.MapWebSocket("/ws", (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo)));
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(host.WebSocketUrl("/ws"));
        Task stopping = host.App.StopAsync(RawHttp.Timeout());
        Assert.Null(await socket.ReceiveAsync(RawHttp.Timeout()));
        WebSocketCloseInfo info = await socket.Completion;
        Assert.Equal((CloseStatus)1001, info.ReceivedStatus);
        Assert.True(info.IsClean);
        await stopping;
    }

    [Fact]
    public async Task AWebSocketTheApplicationHasNotStartedWhenTheServerStopsGets1001AndTheApplicationStillRunsIt()
    {
        // The shutdown's Close used to start a discarding read loop on a websocket the application had not started
        // yet, so the application's RunAsync then threw "already running" (and its end was never reported).
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var ended = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost host = await KestrelHost.StartAsync(app =>
            app.MapWebSocket("/ws", async (_, connection) =>
            {
                entered.SetResult();
                await go.Task;
                try
                {
                    ended.SetResult(await connection.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo)));
                }
                catch (Exception error)
                {
                    ended.SetException(error);
                    throw;
                }
            }));
        using var client = new ClientWebSocket();
        await client.ConnectAsync(host.WebSocketUrl("/ws"), RawHttp.Timeout());
        await entered.Task.WaitAsync(RawHttp.Timeout());
        Task stopping = host.App.StopAsync(RawHttp.Timeout());
        WebSocketReceiveResult received = await client.ReceiveAsync(new byte[64], RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, received.CloseStatus); // before the application ran it
        go.SetResult();
        await client.CloseOutputAsync(WebSocketCloseStatus.EndpointUnavailable, null, RawHttp.Timeout());
        WebSocketCloseInfo info = await ended.Task.WaitAsync(RawHttp.Timeout());
        Assert.True(info.IsClean, info.ToString());
        Assert.Equal((CloseStatus)1001, info.SentStatus);
        Assert.Equal((CloseStatus)1001, info.ReceivedStatus);
        await stopping;
    }

    [Fact]
    public async Task AWebSocketAcceptedAfterTheServerBeganToStopGets1001()
    {
        // The request waits in a middleware until the shutdown's walk over the open websockets has been made.
        var arrived = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost host = await KestrelHost.StartAsync(app =>
        {
            app.Use(async (context, next) =>
            {
                arrived.TrySetResult();
                await Task.Delay(Timeout.Infinite, app.Lifetime.ApplicationStopping).ContinueWith(_ => { });
                await next(context);
            });
            app.MapWebSocket("/ws", (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo));
        });
        using var client = new ClientWebSocket();
        Task connecting = client.ConnectAsync(host.WebSocketUrl("/ws"), RawHttp.Timeout());
        await arrived.Task.WaitAsync(RawHttp.Timeout());
        Task stopping = host.App.StopAsync(RawHttp.Timeout());
        await connecting;
        WebSocketReceiveResult received = await client.ReceiveAsync(new byte[64], RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, received.CloseStatus);
        await client.CloseOutputAsync(WebSocketCloseStatus.EndpointUnavailable, null, RawHttp.Timeout());
        await stopping;
    }
}
