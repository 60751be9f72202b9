using System.Collections.Concurrent;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>What a <see cref="ReconnectingWebSocket"/> does after each kind of end, against a real server: the
/// server's close codes, refused handshakes (with Retry-After), a refused connection, and an application's policy.</summary>
public sealed class ReconnectPolicyTests
{
    private static readonly ReconnectBackoff Quick = new() { InitialDelay = TimeSpan.FromMilliseconds(5), MaxDelay = TimeSpan.FromMilliseconds(20) };

    [Theory]
    [InlineData(1001, true)]
    [InlineData(1008, true)]
    [InlineData(1011, true)]
    [InlineData(1012, true)]
    [InlineData(1013, true)]
    [InlineData(1000, false)]
    [InlineData(1002, false)]
    [InlineData(1003, false)]
    [InlineData(1007, false)]
    [InlineData(1009, false)]
    [InlineData(1010, false)]
    [InlineData(4000, false)]
    public async Task TheServersCloseCodeDecidesWhetherItComesBack(int code, bool reconnects)
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync();
        var ends = new ConcurrentQueue<WebSocketDisconnectedEventArgs>();
        await using var client = new ReconnectingWebSocket(server.Url($"/close/{code}"), new ReconnectingWebSocketOptions { Backoff = Quick });
        client.Disconnected += (_, end) => ends.Enqueue(end);
        await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));
        if (reconnects)
        {
            await Eventually.True(() => server.WebSockets >= 3 && client.Connections >= 3, TimeSpan.FromSeconds(10));
            Assert.All(ends, end => Assert.True(end.WillReconnect));
            Assert.False(client.Completion.IsCompleted);
        }
        else
        {
            Assert.Equal(WebSocketStopReason.NotReconnectable, await client.Completion.WaitAsync(TimeSpan.FromSeconds(10)));
            Assert.Equal(1, server.WebSockets);
            WebSocketDisconnectedEventArgs end = Assert.Single(ends);
            Assert.False(end.WillReconnect);
        }

        Assert.All(ends, end => Assert.Equal((CloseStatus)code, end.CloseInfo.ReceivedStatus));
    }

    [Fact]
    public async Task TheApplicationsPolicyOverridesTheDefault()
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync();
        var options = new ReconnectingWebSocketOptions
        {
            Backoff = Quick,
            ShouldReconnect = (closed, error) => closed?.ReceivedStatus == CloseStatus.NormalClosure || ReconnectPolicy.Default(closed, error),
        };
        await using var client = new ReconnectingWebSocket(server.Url("/close/1000"), options);
        await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));
        await Eventually.True(() => client.Connections >= 3, TimeSpan.FromSeconds(10));
    }

    [Theory]
    [InlineData(503, false)]
    [InlineData(429, false)]
    [InlineData(503, true)]
    public async Task ARefusalWithRetryAfterWaitsThatLongThenConnects(int status, bool http2)
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync(sharedPort: http2);
        server.Refusals = 1;
        var waits = new ConcurrentQueue<WebSocketReconnectingEventArgs>();
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(WebSocketClientOptions.Default));
        await using var client = new ReconnectingWebSocket(
            server.Url($"/refuse/{status}"), new ReconnectingWebSocketOptions { Backoff = Quick, Http2 = http2 ? invoker : null });
        client.Reconnecting += (_, wait) => waits.Enqueue(wait);
        await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));
        WebSocketReconnectingEventArgs wait = Assert.Single(waits);
        Assert.Equal(TimeSpan.FromSeconds(1), wait.Delay); // Retry-After: 1, longer than the back-off
        var refusal = Assert.IsType<WebSocketHandshakeException>(wait.LastError);
        Assert.Equal(status, refusal.StatusCode);
        Assert.Equal(TimeSpan.FromSeconds(1), refusal.RetryAfter);
        Assert.Equal(2, wait.Attempt);
    }

    [Theory]
    [InlineData(500, true)]
    [InlineData(502, true)]
    [InlineData(403, false)]
    [InlineData(404, false)]
    public async Task AnHttpRefusalRetriesOnlyWhenItMayPass(int status, bool retries)
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync();
        server.Refusals = 2;
        await using var client = new ReconnectingWebSocket(server.Url($"/refuse/{status}"), new ReconnectingWebSocketOptions { Backoff = Quick });
        if (retries)
        {
            await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal(1, client.Connections);
        }
        else
        {
            var refusal = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10)));
            Assert.Equal(status, refusal.StatusCode);
            Assert.Equal(WebSocketStopReason.NotReconnectable, await client.Completion.WaitAsync(TimeSpan.FromSeconds(10)));
            Assert.Equal(1, server.Refusals); // one attempt only
        }
    }

    [Fact]
    public async Task ARefusedConnectionIsRetriedUntilTheServerIsBackOnItsPort()
    {
        int port = FreePorts.Next();
        await using var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), new ReconnectingWebSocketOptions { Backoff = Quick });
        var failures = new ConcurrentQueue<Exception?>();
        client.Reconnecting += (_, wait) => failures.Enqueue(wait.LastError);
        Task started = client.StartAsync();
        await Eventually.True(() => failures.Count >= 3, TimeSpan.FromSeconds(10));
        Assert.All(failures, failure => Assert.Null(Assert.IsType<WebSocketHandshakeException>(failure).StatusCode));

        // The server starts, stops (the client's websocket is lost) and starts again on the same port.
        await using (MessageLogServer first = await MessageLogServer.StartAsync(port))
        {
            await started.WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal(WebSocketSendOutcome.Sent, await client.SendTextAsync("one"));
            await Eventually.True(() => first.Received("one"), TimeSpan.FromSeconds(10));
        }

        await Eventually.True(() => !client.IsConnected, TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketSendOutcome.Queued, await client.SendTextAsync("two"));
        await using MessageLogServer second = await MessageLogServer.StartAsync(port);
        await Eventually.True(() => second.Received("two"), TimeSpan.FromSeconds(15));
        Assert.Equal(2, client.Connections);
        Assert.Equal(CloseStatus.GoingAway, client.LastCloseInfo!.ReceivedStatus); // the stopping server's 1001
    }

    [Fact]
    public async Task AnOutageEndsAfterMaxAttempts()
    {
        int port = FreePorts.Next();
        var options = new ReconnectingWebSocketOptions { Backoff = Quick with { MaxAttempts = 3 } };
        await using var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), options);
        var waits = new ConcurrentQueue<WebSocketReconnectingEventArgs>();
        client.Reconnecting += (_, wait) => waits.Enqueue(wait);
        await Assert.ThrowsAsync<WebSocketHandshakeException>(() => client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(WebSocketStopReason.GaveUp, await client.Completion);
        Assert.Equal([2, 3], waits.Select(wait => wait.Attempt));
    }

    [Fact]
    public async Task AnOutageEndsAfterMaxElapsed()
    {
        int port = FreePorts.Next();
        var options = new ReconnectingWebSocketOptions
        {
            Backoff = Quick with { InitialDelay = TimeSpan.FromMilliseconds(100), MaxDelay = TimeSpan.FromMilliseconds(100), Jitter = 0, MaxElapsed = TimeSpan.FromMilliseconds(350) },
        };
        await using var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), options);
        var waits = new ConcurrentQueue<WebSocketReconnectingEventArgs>();
        client.Reconnecting += (_, wait) => waits.Enqueue(wait);
        await Assert.ThrowsAsync<WebSocketHandshakeException>(() => client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal(WebSocketStopReason.GaveUp, await client.Completion);
        Assert.InRange(waits.Count, 1, 3); // 100 ms waits within 350 ms, however slow each refused connect is
    }

    [Fact]
    public async Task AServerCertificateThatIsNotTrustedStopsAtOnce()
    {
        await using WebSocketCodec.AspNetCore.Tests.Infrastructure.KestrelHost host = await WebSocketCodec.AspNetCore.Tests.Infrastructure.KestrelHost.StartAsync(
            map: app => Microsoft.AspNetCore.Builder.EndpointRouteBuilderExtensions.MapGet(app, "/", () => "tls"), tls: true);
        await using var client = new ReconnectingWebSocket(host.WebSocketUrl("/log"), new ReconnectingWebSocketOptions { Backoff = Quick });
        var refusal = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.IsAssignableFrom<System.Security.Authentication.AuthenticationException>(refusal.InnerException);
        Assert.Equal(WebSocketStopReason.NotReconnectable, await client.Completion.WaitAsync(TimeSpan.FromSeconds(10)));
    }
}
