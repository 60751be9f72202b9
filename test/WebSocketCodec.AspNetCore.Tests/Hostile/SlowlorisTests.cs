using System.Net.Sockets;
using System.Text;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>Slowloris: many connections each send part of a request head and stall. Every one is closed at the
/// handshake deadline, and meanwhile a websocket that connects after them all is served.</summary>
public sealed class SlowlorisTests(ITestOutputHelper output)
{
    private const int Stalled = 200;

    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
    public async Task StalledHandshakesAreAllClosedAtTheDeadlineAndAWellBehavedWebSocketIsServed(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        byte[] partial = Encoding.ASCII.GetBytes("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n");
        var sockets = new List<Socket>();
        var answers = new List<Task<byte[]>>();
        try
        {
            for (int i = 0; i < Stalled; i++)
            {
                Socket socket = await RawHttp.ConnectAsync(server.EndPoint(path));
                sockets.Add(socket);
                await socket.SendAsync(partial, SocketFlags.None, bound.Token);
                answers.Add(RawHttp.ReadToEndAsync(socket));
            }

            // Connected after all of them, while they stall: served at once.
            await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);
            await HostileServer.AssertEchoAsync(wellBehaved, "served among the stalled", bound.Token);
            int stillOpen = answers.Count(answer => !answer.IsCompleted);

            byte[][] responses = await Task.WhenAll(answers).WaitAsync(bound.Token);
            var distinct = responses.Select(r => Encoding.ASCII.GetString(r).Split('\r')[0]).GroupBy(r => r).Select(g => $"'{g.Key}' x{g.Count()}");
            output.WriteLine($"{path}: {stillOpen} of {Stalled} stalled handshakes still open when the well-behaved websocket echoed; answers: {string.Join(", ", distinct)}");
            // Our handshake timeout (fast path) and Kestrel's request-headers timeout (endpoint) answer alike.
            Assert.All(responses, response => Assert.StartsWith("HTTP/1.1 408 ", Encoding.ASCII.GetString(response)));

            await HostileServer.AssertEchoAsync(wellBehaved, "served after", bound.Token);
            await server.AssertCleanEndAsync(wellBehaved, bound.Token);
        }
        finally
        {
            sockets.ForEach(socket => socket.Dispose());
        }
    }
}
