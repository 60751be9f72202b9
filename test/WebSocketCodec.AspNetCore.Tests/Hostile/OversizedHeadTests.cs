using System.Net.Sockets;
using System.Text;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A request head that grows without end: 431 at the head bound (the fast path's MaxRequestHeadLength, 8 KiB;
/// Kestrel's MaxRequestHeadersTotalSize, 32 KiB, on the endpoint), then the connection is closed, while a well-behaved
/// websocket is served. (A complete 9 KB head on the fast path: FastPathTests.AnOversizedHeadGets431.)</summary>
public sealed class OversizedHeadTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
    public async Task AHeadThatNeverEndsGets431AndTheConnectionCloses(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);

        using Socket socket = await RawHttp.ConnectAsync(server.EndPoint(path));
        Task<byte[]> answer = RawHttp.ReadToEndAsync(socket);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo").TrimEnd('\r', '\n') + "\r\nX-Filler: "), SocketFlags.None, bound.Token);
        byte[] filler = Encoding.ASCII.GetBytes(new string('a', 16 * 1024));
        long sent = 0;
        while (!answer.IsCompleted && sent < 1 << 20)
        {
            try
            {
                await socket.SendAsync(filler, SocketFlags.None, bound.Token);
            }
            catch (SocketException)
            {
                break; // closed (and reset for our late bytes)
            }

            sent += filler.Length;
            await Task.Delay(2, bound.Token); // pacing: the hostile peer drips its oversized head on purpose
        }

        await HostileServer.AssertEchoAsync(wellBehaved, "served meanwhile", bound.Token);
        string response = Encoding.ASCII.GetString(await answer.WaitAsync(bound.Token));
        output.WriteLine($"{path}: {sent / 1024} KiB of header sent; the server answered '{response.Split('\r')[0]}' and closed");
        Assert.StartsWith("HTTP/1.1 431 ", response);
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }
}
