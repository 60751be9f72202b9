using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// A message in 10,000 fragments gets 1008 at the 4097th header (MaxFragmentsPerMessage, 4096 by default), and a
/// message in exactly 4096 fragments is echoed whole, over real sockets on every host. (The rule itself, at the
/// session: SafeDefaultsTests.A4096FragmentMessageIsDeliveredAndThe4097thFragmentGets1008.)
/// </summary>
public sealed class FragmentFloodTests(ITestOutputHelper output)
{
    [Theory]
    [EveryHostilePath]
    public async Task TenThousandFragmentsGet1008(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);
        await using RawWebSocket hostile = await server.OpenRawAsync(path);

        byte[] fragments = Fragments(10_000, 1);
        await hostile.SendAsync(fragments);
        Assert.InRange(server.Pool.OutstandingBytes, 0, fragments.Length + 64 * 1024);
        await HostileServer.AssertEchoAsync(wellBehaved, "served meanwhile", bound.Token);

        var (status, before) = await hostile.ReadUntilCloseAsync();
        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        output.WriteLine($"{path}: {fragments.Length} bytes in 10,000 fragments; Close {status}; server end: {end}");
        Assert.Equal(1008, status);
        Assert.Empty(before);
        Assert.Equal(ProtocolViolation.TooManyFragments, end.Violation);
        await hostile.DisposeAsync(); // over HTTP/2 this ends the client's connection too
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }

    [Theory]
    [EveryHostilePath]
    public async Task A4096FragmentMessageIsEchoedWhole(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        await using RawWebSocket peer = await server.OpenRawAsync(path);

        byte[] fragments = Fragments(4096, 16);
        await peer.SendAsync(fragments);
        // The server's keep-alive (1 s here) may ping while the 4096 fragments are on their way: answered, not echoed.
        (WebSocketOpcode Opcode, bool Fin, byte[] Payload)? echo = await peer.ReadAnsweringPingsAsync();
        Assert.Equal(WebSocketOpcode.Binary, echo?.Opcode);
        Assert.True(echo!.Value.Fin);
        Assert.Equal(Payload(4096, 16), echo.Value.Payload);

        await peer.SendAsync(WireFrames.ClientClose(1000));
        Assert.Equal(1000, (await peer.ReadUntilCloseAsync(answer: false)).Status);
        await peer.DisposeAsync(); // over HTTP/2 this ends the client's connection too
        await server.AssertCleanEndAsync(null, bound.Token);
    }

    private static byte[] Payload(int count, int size) => [.. Enumerable.Range(0, count * size).Select(i => (byte)(i / size))];

    /// <summary>One binary message in <paramref name="count"/> frames of <paramref name="size"/> bytes: Binary, then
    /// Continuations, FIN on the last.</summary>
    private static byte[] Fragments(int count, int size)
    {
        byte[] payload = Payload(count, size);
        var bytes = new List<byte>();
        for (int i = 0; i < count; i++)
        {
            bytes.AddRange(WireFrames.Client(i == 0 ? WebSocketOpcode.Binary : WebSocketOpcode.Continuation, payload.AsSpan(i * size, size), fin: i == count - 1));
        }

        return [.. bytes];
    }
}
