using System.Diagnostics;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>The reconnecting client against an independent server, node's <c>ws</c>: the server process is killed
/// (its connections reset) and started again on the same port; what was sent meanwhile is echoed after the restart.</summary>
public sealed class ReconnectNodeWsTests(NodeFixture node) : IClassFixture<NodeFixture>
{
    [SkippableFact]
    public async Task AKilledAndRestartedWsServerGetsTheQueuedMessagesInOrder()
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);
        (Process first, int port) = await node.StartEchoServerAsync();
        var options = new ReconnectingWebSocketOptions
        {
            Backoff = new ReconnectBackoff { InitialDelay = TimeSpan.FromMilliseconds(10), MaxDelay = TimeSpan.FromMilliseconds(50) },
            OnConnected = (webSocket, cancellation) => webSocket.SendTextAsync("hook", cancellation),
        };
        await using var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{port}/"), options);
        var lost = new TaskCompletionSource<WebSocketDisconnectedEventArgs>(TaskCreationOptions.RunContinuationsAsynchronously);
        client.Disconnected += (_, end) => lost.TrySetResult(end);
        Process? second = null;
        try
        {
            await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal("hook", await NextAsync(client));

            first.Kill(entireProcessTree: true);
            WebSocketDisconnectedEventArgs end = await lost.Task.WaitAsync(TimeSpan.FromSeconds(10));
            Assert.True(end.WillReconnect);
            Assert.Null(end.CloseInfo.ReceivedStatus); // a reset, no Close
            for (int i = 0; i < 10; i++)
            {
                Assert.Equal(WebSocketSendOutcome.Queued, await client.SendTextAsync($"queued {i}"));
            }

            (second, int again) = await node.StartEchoServerAsync(arguments: port.ToString(System.Globalization.CultureInfo.InvariantCulture));
            Assert.Equal(port, again);
            Assert.Equal("hook", await NextAsync(client));
            for (int i = 0; i < 10; i++)
            {
                Assert.Equal($"queued {i}", await NextAsync(client));
            }

            Assert.Equal(2, client.Connections);
        }
        finally
        {
            first.Dispose();
            second?.Kill(entireProcessTree: true);
            second?.Dispose();
        }
    }

    private static async Task<string> NextAsync(ReconnectingWebSocket client)
    {
        using WebSocketMessage? message = await client.ReceiveAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(15));
        return message!.GetText();
    }
}
