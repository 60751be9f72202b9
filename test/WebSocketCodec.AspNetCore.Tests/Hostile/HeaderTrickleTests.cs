using System.Net.Sockets;
using System.Text;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A request head sent one byte every few milliseconds that never completes: the connection is closed at the
/// handshake deadline however steadily the bytes come (the deadline is on the whole head, not on a quiet gap), while a
/// well-behaved websocket is served. (A silent client after one line: FastPathTests.ASilentClientIsDroppedAfterTheHandshakeTimeout.)</summary>
public sealed class HeaderTrickleTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
    public async Task ATrickledHeadIsClosedAtTheHandshakeDeadline(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);

        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint(path));
        Task<byte[]> answer = RawHttp.ReadToEndAsync(socket);
        // An upgrade request whose last header never ends (well under the 8 KiB head bound at 5 ms a byte).
        byte[] head = Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo").TrimEnd('\r', '\n') + "\r\nX-Trickle: " + new string('a', 4000));
        int sent = 0;
        int echoes = 0;
        while (!answer.IsCompleted && sent < head.Length)
        {
            try
            {
                await socket.SendAsync(head.AsMemory(sent, 1), SocketFlags.None, bound.Token);
            }
            catch (SocketException)
            {
                break; // the server closed (and reset our late bytes)
            }

            sent++;
            if (sent % 50 == 1) // from the first byte on: a loaded machine may reach the deadline within 50 bytes
            {
                await HostileServer.AssertEchoAsync(wellBehaved, $"meanwhile {sent}", bound.Token);
                echoes++;
            }

            await Task.Delay(5, bound.Token); // pacing: the hostile peer trickles its head on purpose
        }

        string response = Encoding.ASCII.GetString(await answer.WaitAsync(bound.Token));
        output.WriteLine($"{path}: {sent} bytes trickled, {echoes} echoes meanwhile; the server answered '{response.Split('\r')[0]}' and closed");
        Assert.True(sent < head.Length, "the trickle outlived a 4000-byte header at 5 ms a byte");
        Assert.StartsWith("HTTP/1.1 408 ", response); // our handshake timeout (fast path), Kestrel's request-headers timeout (endpoint)

        Assert.True(echoes > 0);
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }
}
