using System.Diagnostics;
using System.Net.Sockets;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A peer that sends echo requests and never reads, over real sockets: the read loop does not stall behind
/// the stuck output, the server gives the peer up and tears the connection down (its bytes wait in Kestrel's buffers,
/// which would otherwise hold it open for as long as the peer does not read), and goes on serving others. The peer
/// sends whole frames only: a send is never cancelled half way, so the stream it sends stays framed.</summary>
public sealed class NeverReadingPeerTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task TheKeepAliveGivesUpAPeerThatNeverReadsAndOthersAreStillServed()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, KeepAlive = TimeSpan.FromSeconds(1) });
        using Socket socket = await UpgradeAsync(server);

        (TimeSpan? stuckAt, bool reset) = await PushUntilTornDownAsync(socket, violateOnceStuck: false);

        Assert.NotNull(stuckAt); // the echoes did pile up: the loop stopped reading behind them
        Assert.True(reset, "the server never gave up a peer that does not read");
        await using RawWebSocket other = await RawWebSocket.OpenAsync(server);
        await other.AssertEchoAsync("still served");
    }

    [Fact]
    public async Task APeerThatNeverReadsAndThenBreaksTheProtocolIsTornDown()
    {
        // The violation is read at the turn the keep-alive's Ping resumes reading, or the keep-alive ends the
        // websocket first: its Close cannot reach the peer either way, and the connection must still be torn down.
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, KeepAlive = TimeSpan.FromSeconds(1) });
        using Socket socket = await UpgradeAsync(server);

        (TimeSpan? stuckAt, bool reset) = await PushUntilTornDownAsync(socket, violateOnceStuck: true);

        Assert.NotNull(stuckAt);
        Assert.True(reset, "the server never tore down a peer that broke the protocol and does not read");
        await using RawWebSocket other = await RawWebSocket.OpenAsync(server);
        await other.AssertEchoAsync("still served");
    }

    private static async Task<Socket> UpgradeAsync(EchoServerHost server)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(server.EndPoint);
        await socket.SendAsync(System.Text.Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo")));
        byte[] head = new byte[1024];
        Assert.True(await socket.ReceiveAsync(head) > 0); // the 101; from now on nothing is read
        return socket;
    }

    /// <summary>Echo requests of 64 KiB, each sent whole, until the server tears the connection down (a send fails)
    /// or the bound passes; with <paramref name="violateOnceStuck"/>, the first frame after the server stopped
    /// reading has a reserved bit set (a violation without an extension).</summary>
    private async Task<(TimeSpan? StuckAt, bool Reset)> PushUntilTornDownAsync(Socket socket, bool violateOnceStuck)
    {
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[64 * 1024]);
        byte[] violation = WireFrames.Client(0xC2, new byte[64 * 1024]); // FIN, RSV1, Binary: no extension agreed
        var clock = Stopwatch.StartNew();
        TimeSpan? stuckAt = null;
        bool violated = false;
        try
        {
            while (clock.Elapsed < Bound)
            {
                byte[] next = violateOnceStuck && stuckAt is not null && !violated ? violation : frame;
                violated |= next == violation;
                Task<int> send = socket.SendAsync(next, SocketFlags.None);
                if (await Task.WhenAny(send, Task.Delay(500)) != send)
                {
                    stuckAt ??= clock.Elapsed; // the server stopped reading: its output is stuck
                }

                await send.WaitAsync(Bound - clock.Elapsed > TimeSpan.Zero ? Bound - clock.Elapsed : TimeSpan.Zero);
            }
        }
        catch (SocketException)
        {
            output.WriteLine($"server stopped reading after {stuckAt?.TotalMilliseconds:F0} ms; torn down after {clock.ElapsedMilliseconds} ms");
            return (stuckAt, true);
        }
        catch (TimeoutException)
        {
            // A send still waits at the bound: the server neither read nor tore the connection down.
        }

        output.WriteLine($"server stopped reading after {stuckAt?.TotalMilliseconds:F0} ms; still open after {clock.ElapsedMilliseconds} ms");
        return (stuckAt, false);
    }
}
