using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// A frame header that announces 16 MiB (the limit, so allowed) and a payload that never completes: the server holds
/// about the bytes that arrived (pooled segments of at most 64 KiB), never the announced length, and gives the peer up
/// by the keep-alive rule once it goes quiet (a peer mid-frame cannot answer a Ping): 1001. One byte more than the limit
/// is refused from the header alone with 1009. (The same with 100 websockets under a capped heap:
/// HeapLimitedServerTests; 1009 over the echo server: ConformanceTests.AMessageOverTheLimitGets1009.)
/// </summary>
public sealed class AnnouncedHugeFrameTests(ITestOutputHelper output)
{
    // FIN, Binary; MASK, 127: a 64-bit length follows; 0x01000000 = 16 MiB; the mask key 11 22 33 44. No payload.
    private static readonly byte[] Header16MiB = WireFrames.Frame(WebSocketOpcode.Binary, [], maskKey: 0x44332211, announcedLength: 16 << 20);

    // The same, 16 MiB + 1.
    private static readonly byte[] HeaderOverTheLimit = WireFrames.Frame(WebSocketOpcode.Binary, [], maskKey: 0x44332211, announcedLength: (16 << 20) + 1);

    [Theory]
    [EveryHostilePath]
    public async Task AFrameThatNeverCompletesHoldsWhatArrivedAndIsGivenUpByTheKeepAlive(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync(); // keep-alive 1 s + 1 s stands for 30 s + 15 s
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);
        await using RawWebSocket hostile = await server.OpenRawAsync(path);

        await hostile.SendAsync(Header16MiB);
        byte[] chunk = new byte[4096];
        long sent = 0;
        long most = 0;
        for (int i = 1; i <= 40; i++)
        {
            await hostile.SendAsync(chunk);
            sent += chunk.Length;
            most = Math.Max(most, server.Pool.OutstandingBytes);
            Assert.InRange(server.Pool.OutstandingBytes, 0, sent + 64 * 1024); // what arrived, in segments of 64 KiB
            if (i % 10 == 0)
            {
                await HostileServer.AssertEchoAsync(wellBehaved, $"meanwhile {i}", bound.Token);
            }

            await Task.Delay(5, bound.Token); // pacing: the hostile peer trickles its frame on purpose
        }

        // The server gathers what it reads: no event says "read", so poll (bounded) until it holds all of it.
        await Eventually.True(() => server.Pool.OutstandingBytes >= sent);

        most = Math.Max(most, server.Pool.OutstandingBytes);
        Assert.InRange(server.Pool.OutstandingBytes, sent, sent + 64 * 1024);

        // Then the peer goes quiet mid-frame: a keep-alive Ping after 1 s, no Pong, 1001 a second later.
        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        ServerFrames frames = await ServerFrames.ReadToEndAsync(hostile);
        output.WriteLine($"{path}: sent {sent / 1024} KiB of a 16 MiB frame; the server held at most {most / 1024} KiB; " +
            $"it sent {string.Join(", ", frames.Frames.Select(f => f.Opcode))} then {(frames.Reset ? "reset" : "closed")}; server end: {end}");
        Assert.Equal((CloseStatus)1001, end.SentStatus);
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, end.EndReason);
        frames.AssertGivenUpWith(1001);
        Assert.InRange(frames.Count(WebSocketOpcode.Ping), frames.Reset ? 0 : 1, 1); // the keep-alive Ping

        await HostileServer.AssertEchoAsync(wellBehaved, "served after", bound.Token);
        await hostile.DisposeAsync(); // over HTTP/2 this ends the client's connection too
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }

    [Theory]
    [EveryHostilePath]
    public async Task OneByteOverTheLimitGets1009FromTheHeaderAlone(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync(); // close timeout 1 s stands for 5 s
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);
        await using RawWebSocket hostile = await server.OpenRawAsync(path);

        await hostile.SendAsync(HeaderOverTheLimit);
        (WebSocketOpcode Opcode, bool Fin, byte[] Payload)? close = await hostile.ReadFrameAsync();
        Assert.Equal(WebSocketOpcode.Close, close?.Opcode);
        Assert.Equal(1009, WireFrames.CloseStatusOf(close!.Value.Payload));
        Assert.Equal(0, server.Pool.OutstandingBytes); // nothing rented for the announced length
        await HostileServer.AssertEchoAsync(wellBehaved, "served meanwhile", bound.Token);

        // Our Close could only follow 16 MiB of payload: the server's drain gives up at its close timeout.
        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        ServerFrames rest = await ServerFrames.ReadToEndAsync(hostile);
        output.WriteLine($"{path}: server end: {end}; then {(rest.Reset ? "reset" : "closed")}");
        Assert.Empty(rest.Frames);
        Assert.Equal((CloseStatus)1009, end.SentStatus);
        Assert.Equal(ProtocolViolation.FrameTooBig, end.Violation);
        await hostile.DisposeAsync(); // over HTTP/2 this ends the client's connection too
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }
}
