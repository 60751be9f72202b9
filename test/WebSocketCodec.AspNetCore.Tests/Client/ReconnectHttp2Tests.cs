using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>Reconnecting over HTTP/2: each websocket is a stream of one shared connection; when that connection is
/// cut, the websockets come back together on one new connection.</summary>
public sealed class ReconnectHttp2Tests
{
    [Fact]
    public async Task WebSocketsOfALostConnectionShareItsReplacement()
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync(sharedPort: true);
        await using FaultRelay relay = FaultRelay.Start(server.Port);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(WebSocketClientOptions.Default));
        var options = new ReconnectingWebSocketOptions
        {
            Http2 = invoker,
            Backoff = new ReconnectBackoff { InitialDelay = TimeSpan.FromMilliseconds(5), MaxDelay = TimeSpan.FromMilliseconds(20) },
        };
        ReconnectingWebSocket[] clients = [.. Enumerable.Range(0, 3).Select(_ => new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{relay.Port}/log"), options))];
        try
        {
            await Task.WhenAll(clients.Select(client => client.StartAsync())).WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal(1, relay.Accepted); // three streams, one connection

            relay.CutAfter(0);
            await Eventually.True(() => clients.All(client => client.Connections == 2 && client.IsConnected), TimeSpan.FromSeconds(10));
            Assert.Equal(2, relay.Accepted); // the three came back on one new connection

            for (int i = 0; i < clients.Length; i++)
            {
                Assert.Equal(WebSocketSendOutcome.Sent, await clients[i].SendTextAsync($"after {i}"));
            }

            await Eventually.True(() => Enumerable.Range(0, clients.Length).All(i => server.Received($"after {i}")), TimeSpan.FromSeconds(10));
            Assert.Equal(6, server.WebSockets);
        }
        finally
        {
            foreach (ReconnectingWebSocket client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }
}
