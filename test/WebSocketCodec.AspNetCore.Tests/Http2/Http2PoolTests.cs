using Microsoft.AspNetCore.Builder;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Http2;

/// <summary>No leaks over HTTP/2: every pooled buffer (frames gathered across reads, messages) comes back whether the
/// websocket closes cleanly, breaks the protocol mid-message, or is reset by the client mid-frame.</summary>
public sealed class Http2PoolTests
{
    [Fact]
    public async Task EveryBufferComesBackOnEveryPath()
    {
        var pool = new CountingPool();
        int ended = 0;
        var allEnded = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Action<WebSocketAcceptOptions> options = o => { o.Session = WebSocketSessionOptions.Default with { Pool = pool }; };
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocketMessages("/ws", async (_, socket) =>
            {
                try
                {
                    while (await socket.ReceiveAsync() is { } message)
                    {
                        using (message)
                        {
                            await socket.SendAsync(message.Payload, message.Type);
                        }
                    }
                }
                finally
                {
                    if (Interlocked.Increment(ref ended) == 3)
                    {
                        allEnded.TrySetResult();
                    }
                }
            }, options),
            sharedPort: true);
        using var connection = new HttpMessageInvoker(Http2Requests.Handler());
        byte[] big = new byte[100_000];
        new Random(1).NextBytes(big);
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, big);

        // 1. A big frame in pieces, echoed, then a clean close.
        await using (RawWebSocket clean = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection))
        {
            for (int offset = 0; offset < frame.Length; offset += 7_000)
            {
                await clean.SendAsync(frame[offset..Math.Min(frame.Length, offset + 7_000)]);
            }

            var echo = await clean.ReadFrameAsync();
            Assert.Equal(big, echo!.Value.Payload);
            await clean.SendAsync(WireFrames.ClientClose(1000));
            Assert.Equal(1000, (await clean.ReadUntilCloseAsync(answer: false)).Status);
        }

        // 2. A fragmented message broken by a protocol error: 1002.
        await using (RawWebSocket broken = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection))
        {
            await broken.SendAsync([.. WireFrames.Client(WebSocketOpcode.Binary, big.AsSpan(0, 50_000), fin: false), .. WireFrames.Client(0x83, [1])]);
            Assert.Equal(1002, (await broken.ReadUntilCloseAsync()).Status);
        }

        // 3. Half a big frame, then RST_STREAM.
        RawWebSocket reset = await RawWebSocket.OpenHttp2Async(host.BaseUrl, "/ws", connection);
        long held = pool.OutstandingBytes;
        await reset.SendAsync(frame[..(frame.Length / 2)]);
        await Eventually.True(() => pool.OutstandingBytes >= held + (frame.Length / 2) - 14); // the server holds the half payload
        await reset.DisposeAsync();

        await allEnded.Task.WaitAsync(TimeSpan.FromSeconds(20));

        // The endpoint disposes each websocket after the application returns, in the background.
        await Eventually.True(() => pool.Outstanding == 0);
        Assert.True(pool.Rented > 0);
    }
}
