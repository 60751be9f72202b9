using System.Net.WebSockets;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>Sends while disconnected under each policy, the queue's bounds and buffers, the hook's order, disposal.</summary>
public sealed class ReconnectSendPolicyTests
{
    [Fact]
    public async Task FailThrowsAndDropReportsWhileDisconnected()
    {
        int port = FreePorts.Next();
        var fail = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), new ReconnectingWebSocketOptions { WhileDisconnected = DisconnectedSendPolicy.Fail });
        await using (fail)
        {
            await Assert.ThrowsAsync<WebSocketNotConnectedException>(() => fail.SendTextAsync("x").AsTask());
        }

        await using var drop = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), new ReconnectingWebSocketOptions { WhileDisconnected = DisconnectedSendPolicy.Drop });
        Assert.Equal(WebSocketSendOutcome.Dropped, await drop.SendTextAsync("x"));
        Assert.Equal(0, drop.QueuedMessages);
    }

    [Fact]
    public async Task TheQueueIsBoundedInMessagesAndBytesAndReturnsItsBuffers()
    {
        var pool = new CountingPool();
        int port = FreePorts.Next();
        var options = new ReconnectingWebSocketOptions
        {
            Client = new WebSocketClientOptions { Session = WebSocketSessionOptions.Default with { Pool = pool } },
            MaxQueuedMessages = 3,
            MaxQueuedBytes = 10,
        };
        var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), options);
        Assert.Equal(WebSocketSendOutcome.Queued, await client.SendAsync(new byte[4], WebSocketMessageType.Binary));
        Assert.Equal(WebSocketSendOutcome.Queued, await client.SendAsync(new byte[4], WebSocketMessageType.Binary));
        var full = await Assert.ThrowsAsync<WebSocketNotConnectedException>(() => client.SendAsync(new byte[4], WebSocketMessageType.Binary).AsTask());
        Assert.Contains("queue is full", full.Message, StringComparison.Ordinal);
        Assert.Equal(WebSocketSendOutcome.Queued, await client.SendAsync(new byte[2], WebSocketMessageType.Binary));
        await Assert.ThrowsAsync<WebSocketNotConnectedException>(() => client.SendAsync(Array.Empty<byte>(), WebSocketMessageType.Binary).AsTask());
        Assert.Equal(3, client.QueuedMessages);
        Assert.Equal(3, pool.Outstanding);
        await client.DisposeAsync();
        Assert.Equal(0, pool.Outstanding);
        await Assert.ThrowsAsync<WebSocketNotConnectedException>(() => client.SendTextAsync("after").AsTask());
    }

    [Fact]
    public async Task QueuedMessagesGoOutAfterTheHookInOrder()
    {
        int port = FreePorts.Next();
        var options = new ReconnectingWebSocketOptions
        {
            Backoff = new ReconnectBackoff { InitialDelay = TimeSpan.FromMilliseconds(5), MaxDelay = TimeSpan.FromMilliseconds(20) },
            OnConnected = async (webSocket, cancellation) =>
            {
                await webSocket.SendTextAsync("subscribe", cancellation);
                await webSocket.SendTextAsync("authenticate", cancellation);
            },
        };
        await using var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), options);
        for (int i = 0; i < 20; i++)
        {
            Assert.Equal(WebSocketSendOutcome.Queued, await client.SendTextAsync($"m{i}"));
        }

        Task started = client.StartAsync();
        await using MessageLogServer server = await MessageLogServer.StartAsync(port);
        await started.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketSendOutcome.Sent, await client.SendTextAsync("live"));
        await Eventually.True(() => server.Received("live"), TimeSpan.FromSeconds(10));
        string[] expected = ["subscribe", "authenticate", .. Enumerable.Range(0, 20).Select(i => $"m{i}"), "live"];
        Assert.Equal(expected, server.Log.Select(entry => entry.Text));

        // What the server echoed comes through ReceiveAsync, in order.
        foreach (string text in expected)
        {
            using WebSocketMessage? message = await client.ReceiveAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal(text, message!.GetText());
        }
    }

    [Fact]
    public async Task DisposalStopsAWaitAtOnceAndLeavesNoTimer()
    {
        int port = FreePorts.Next();
        var time = new CountingTimeProvider();
        var options = new ReconnectingWebSocketOptions
        {
            Client = new WebSocketClientOptions { Session = WebSocketSessionOptions.Default with { TimeProvider = time } },
            Backoff = new ReconnectBackoff { InitialDelay = TimeSpan.FromHours(1), MaxDelay = TimeSpan.FromHours(1) },
        };
        var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/log"), options);
        var waiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        client.Reconnecting += (_, _) => waiting.TrySetResult();
        Task started = client.StartAsync();
        await waiting.Task.WaitAsync(TimeSpan.FromSeconds(10));
        await Eventually.True(() => time.Live == 1, TimeSpan.FromSeconds(5)); // the hour's wait
        await client.DisposeAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(5));
        Assert.Equal(0, time.Live);
        Assert.Equal(WebSocketStopReason.Disposed, await client.Completion);
        await Assert.ThrowsAsync<WebSocketHandshakeException>(() => started); // the refused connection's error
        Assert.Null(await client.ReceiveAsync());
    }

    [Fact]
    public async Task CloseEndsWithACloseHandshakeAndStopsForGood()
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync();
        await using var client = new ReconnectingWebSocket(server.Url("/log"));
        await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));
        WebSocketCloseInfo? closed = await client.CloseAsync(CloseStatus.NormalClosure, "bye").WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketEndReason.Closed, closed!.EndReason);
        Assert.Equal(WebSocketStopReason.Closed, await client.Completion);
        await Eventually.True(() => server.Open == 0, TimeSpan.FromSeconds(10));
        Assert.Equal(1, server.WebSockets);
    }
}
