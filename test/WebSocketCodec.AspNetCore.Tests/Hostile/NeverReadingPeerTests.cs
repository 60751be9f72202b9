using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>A peer that sends echo requests and never reads, over real sockets: the read loop does not stall behind
/// the stuck output, the keep-alive gives the peer up, and the server goes on serving others.</summary>
public sealed class NeverReadingPeerTests(ITestOutputHelper output)
{
    [Fact]
    public async Task TheKeepAliveGivesUpAPeerThatNeverReadsAndOthersAreStillServed()
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, KeepAlive = TimeSpan.FromSeconds(1) });
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(server.EndPoint);
        await socket.SendAsync(System.Text.Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo")));
        byte[] head = new byte[1024];
        Assert.True(await socket.ReceiveAsync(head) > 0); // the 101; from now on nothing is read

        // Echo requests, 64 KiB each, until the server stops taking them (its echoes pile up unread) or gives up.
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[64 * 1024]);
        var clock = Stopwatch.StartNew();
        TimeSpan? stuckAt = null;
        bool reset = false;
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        try
        {
            while (!bound.IsCancellationRequested)
            {
                using var stall = CancellationTokenSource.CreateLinkedTokenSource(bound.Token);
                stall.CancelAfter(TimeSpan.FromMilliseconds(500));
                try
                {
                    await socket.SendAsync(frame, SocketFlags.None, stall.Token);
                }
                catch (OperationCanceledException) when (!bound.IsCancellationRequested)
                {
                    stuckAt ??= clock.Elapsed; // the server stopped reading: its output is stuck
                    await Task.Delay(100, bound.Token); // pacing: the peer that never reads pushes again a little later
                }
            }
        }
        catch (SocketException)
        {
            reset = true; // the server gave the peer up and tore the connection down
        }

        output.WriteLine($"server stopped reading after {stuckAt?.TotalMilliseconds:F0} ms; connection torn down after {clock.ElapsedMilliseconds} ms");
        Assert.NotNull(stuckAt); // the echoes did pile up: the loop stopped reading behind them
        Assert.True(reset, "the server never gave up a peer that does not read");

        // Meanwhile and afterwards the server serves others.
        await using RawWebSocket other = await RawWebSocket.OpenAsync(server);
        await other.AssertEchoAsync("still served");
    }
}
