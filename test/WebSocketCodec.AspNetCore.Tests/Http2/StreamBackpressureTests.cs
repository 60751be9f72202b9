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
        long[] accepted = new long[3]; // bytes each stalled stream's writes handed to the connection
        const int Chunk = 16 * 1024;
        try
        {
            for (int i = 0; i < 3; i++)
            {
                RawWebSocket socket = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/stalled", connection);
                stalled.Add(socket);
                int index = i;
                stalledWrites.Add(Task.Run(async () =>
                {
                    for (int sent = 0; sent < 1 << 20; sent += Chunk) // 1 MiB, far beyond its window
                    {
                        await socket.SendAsync(new byte[Chunk]);
                        Interlocked.Add(ref accepted[index], Chunk);
                    }
                }));
            }

            // The stalled streams use up their windows (128 KiB each): their writes get that far, and no farther.
            await Eventually.True(() => Enumerable.Range(0, 3).All(i => Interlocked.Read(ref accepted[i]) >= (128 * 1024) - Chunk));
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
            Assert.All(Enumerable.Range(0, 3), i => Assert.InRange(Interlocked.Read(ref accepted[i]), 0, 128 * 1024));
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
