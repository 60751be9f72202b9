using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// A frame whose payload is trickled a byte at a time, faster than the keep-alive interval: memory stays bounded (one
/// 64 KiB segment), but no rule gives the peer up. The keep-alive Ping and the idle timeout both count from the last
/// byte received, and there is no minimum data rate or deadline for a frame, so a peer can hold a websocket (and one of
/// MaxConcurrentWebSockets) for as long as it keeps trickling: a slowloris after the handshake.
/// </summary>
public sealed class FrameTrickleTests(ITestOutputHelper output)
{
    [Theory(Skip = "Library gap (reported, issue 22): no rule gives up a frame trickled faster than the keep-alive interval; needs a frame deadline or a minimum data rate")]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    public async Task AFrameTrickledForeverIsGivenUp(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync(); // keep-alive 1 s + 1 s stands for 30 s + 15 s
        await using RawWebSocket hostile = await server.OpenRawAsync(path);

        // A 16 MiB frame, then a byte every 200 ms (under the 1 s keep-alive interval) for 10 s: five times the
        // keep-alive's interval and timeout together.
        await hostile.SendAsync([0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x11, 0x22, 0x33, 0x44]);
        Task<WebSocketCloseInfo> end = server.NextEndAsync(bound.Token).AsTask();
        for (int i = 0; i < 50 && !end.IsCompleted; i++)
        {
            try
            {
                await hostile.SendAsync([0]);
            }
            catch (IOException)
            {
                break; // given up
            }

            Assert.InRange(server.Pool.OutstandingBytes, 0, 64 * 1024 + i + 1);
            await Task.Delay(200, bound.Token); // pacing
        }

        output.WriteLine($"{path}: given up: {(end.IsCompleted ? (await end).ToString() : "no")}");
        Assert.True(end.IsCompleted, "a peer trickling one frame kept its websocket open");
        await hostile.DisposeAsync();
        await server.AssertCleanEndAsync(null, bound.Token);
    }
}
