using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>Per-stream backpressure over HTTP/2: a websocket whose application stops reading holds the peer to its
/// stream window, and the other websockets on the same connection keep flowing (with
/// <see cref="Http2LimitsExtensions.ConfigureHttp2ForWebSockets"/>; Kestrel's defaults let two stalled streams use
/// up the whole connection window).</summary>
public sealed class StreamBackpressureTests
{
    [Fact]
    public async Task StalledWebSocketsDoNotStallTheOthersOnTheirConnection()
    {
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app =>
            {
                app.MapWebSocket("/stalled", async (_, channel) => await release.Task); // never reads
                app.MapWebSocket("/ws", static (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, _, payload) => s.Send(WebSocketOpcode.Binary, payload)));
            },
            sharedPort: true,
            kestrelOptions: kestrel => kestrel.ConfigureHttp2ForWebSockets(maxStreamsPerConnection: 16, streamWindowSize: 128 * 1024));
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        var stalled = new List<RawWebSocket>();
        var stalledWrites = new List<Task>();
        try
        {
            for (int i = 0; i < 3; i++)
            {
                RawWebSocket socket = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/stalled", connection);
                stalled.Add(socket);
                stalledWrites.Add(Task.Run(() => socket.SendAsync(new byte[1 << 20]))); // 1 MiB, far beyond its window
            }

            await Task.Delay(200); // let the stalled streams use up their windows
            byte[] message = new byte[16 * 1024];
            new Random(7).NextBytes(message);
            await Task.WhenAll(Enumerable.Range(0, 3).Select(async _ =>
            {
                await using RawWebSocket live = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
                for (int round = 0; round < 64; round++) // 1 MiB each way per live stream
                {
                    await live.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, message));
                    var echo = await live.ReadFrameAsync();
                    Assert.Equal(message, echo!.Value.Payload);
                }
            }));

            // The stalled streams' peer is held to the stream window: none of the 1 MiB writes could finish.
            Assert.All(stalledWrites, write => Assert.False(write.IsCompleted));
        }
        finally
        {
            release.TrySetResult();
            foreach (RawWebSocket socket in stalled)
            {
                await socket.DisposeAsync();
            }

            await Task.WhenAll(stalledWrites.Select(write => write.ContinueWith(static _ => { }, TaskScheduler.Default)));
        }
    }
}
