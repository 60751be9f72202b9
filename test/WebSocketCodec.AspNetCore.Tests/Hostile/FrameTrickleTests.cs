using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// A frame whose payload is trickled a byte at a time, faster than the keep-alive interval (so its bytes count as
/// activity, and it cannot answer a Ping inside a frame): memory stays bounded by the bytes received plus one segment,
/// and the minimum data rate (240 B/s after a 5 s grace, defaults) gives the peer up with 1008 instead of letting it hold
/// a websocket, and one of MaxConcurrentWebSockets, for as long as it trickles: a slowloris after the handshake.
/// </summary>
public sealed class FrameTrickleTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
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

            Assert.InRange(server.Pool.OutstandingBytes, 0, 4096 + i + 1); // one 4 KiB segment for what trickled in
            await Task.Delay(200, bound.Token); // pacing: the hostile peer trickles its frame on purpose
        }

        output.WriteLine($"{path}: given up: {(end.IsCompleted ? (await end).ToString() : "no")}");
        Assert.True(end.IsCompleted, "a peer trickling one frame kept its websocket open");
        WebSocketCloseInfo info = await end;
        if (info.Violation == ProtocolViolation.None)
        {
            // On a loaded machine a pause between two bytes can outlast the 1 s keep-alive interval: then the keep-alive
            // gives the peer up first, as it should.
            Assert.Equal(WebSocketEndReason.KeepAliveTimeout, info.EndReason);
            Assert.Equal((CloseStatus)1001, info.SentStatus);
        }
        else
        {
            Assert.Equal(ProtocolViolation.FrameTooSlow, info.Violation);
            Assert.Equal((CloseStatus)1008, info.SentStatus);
        }
        await hostile.DisposeAsync();
        await server.AssertCleanEndAsync(null, bound.Token);
    }
}
