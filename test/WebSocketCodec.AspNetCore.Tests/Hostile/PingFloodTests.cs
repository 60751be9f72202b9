using WebSocketCodec.Pipelines;
using System.Buffers.Binary;
using System.Text;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// Ten thousand Pings written without reading a Pong: the Pings of one read share one Pong, the latest's (RFC 6455
/// §5.5.3), so the Pongs are bounded by the reads, not the Pings, and the server holds no buffer for them; a peer that
/// then stops (reading nothing still) is given up by the keep-alive rule with 1001.
/// </summary>
public sealed class PingFloodTests(ITestOutputHelper output)
{
    private const int Pings = 10_000;

    [Theory]
    [EveryHostilePath]
    public async Task PongsAreBoundedByTheReadsAndASilentFlooderIsGivenUp(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync(); // keep-alive 1 s + 1 s stands for 30 s + 15 s
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);
        await using RawWebSocket hostile = await server.OpenRawAsync(path);

        // Pings carrying their number, in 10 writes, then a text message whose echo marks the end of the Pongs.
        byte[] payload = new byte[8];
        var flood = new List<byte>();
        long sent = 0;
        long most = 0;
        for (int i = 1; i <= Pings; i++)
        {
            BinaryPrimitives.WriteInt64BigEndian(payload, i);
            flood.AddRange(WireFrames.Client(WebSocketOpcode.Ping, payload));
            if (i % (Pings / 10) == 0)
            {
                await hostile.SendAsync([.. flood]);
                sent += flood.Count;
                flood.Clear();
                most = Math.Max(most, server.Pool.OutstandingBytes);
                Assert.InRange(server.Pool.OutstandingBytes, 0, 64 * 1024); // at most a Ping cut between reads
                await HostileServer.AssertEchoAsync(wellBehaved, $"meanwhile {i}", bound.Token);
            }
        }

        await hostile.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "done"u8));
        var pongs = new List<long>();
        while (await hostile.ReadFrameAsync() is { } frame && frame.Opcode != WebSocketOpcode.Text)
        {
            Assert.Equal(WebSocketOpcode.Pong, frame.Opcode);
            pongs.Add(BinaryPrimitives.ReadInt64BigEndian(frame.Payload));
        }

        // Kestrel reads into at least 2 KiB of free buffer, so a read of a flood already sent takes at least that much
        // unless the flood itself arrived in smaller pieces: a Pong per 1 KiB sent is a bound twice as loose.
        output.WriteLine($"{path}: {Pings} Pings ({sent / 1024} KiB) got {pongs.Count} Pongs; the server held at most {most} pooled bytes");
        Assert.InRange(pongs.Count, 1, sent / 1024);
        Assert.Equal(Pings, pongs[^1]); // the last Ping is answered
        Assert.Equal(pongs.Order(), pongs); // each for the latest Ping of its read, in order

        // Now the flooder goes quiet and reads nothing: the keep-alive Ping goes unanswered, 1001.
        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        ServerFrames rest = await ServerFrames.ReadToEndAsync(hostile);
        output.WriteLine($"{path}: server end: {end}; the peer then read {string.Join(", ", rest.Frames.Select(f => f.Opcode))}, {(rest.Reset ? "reset" : "closed")}");
        Assert.Equal((CloseStatus)1001, end.SentStatus);
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, end.EndReason);
        rest.AssertGivenUpWith(1001);

        await HostileServer.AssertEchoAsync(wellBehaved, "served after", bound.Token);
        await hostile.DisposeAsync(); // over HTTP/2 this ends the client's connection too
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }
}
