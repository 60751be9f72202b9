using System.Net.Sockets;
using System.Text;
using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// A peer that asks for large echoes and never reads them: the echoes fill the transport, the websocket stays above
/// its high water mark, and the slow-consumer policy closes it with 1008 and, as even that Close cannot be written,
/// aborts it; the server holds at most about a frame of it meanwhile and serves others. (The keep-alive giving such a
/// peer up on the demo server: NeverReadingPeerTests.)
/// </summary>
public sealed class NeverReadingTests(ITestOutputHelper output)
{
    /// <summary>Slow consumers closed after 1 s (default 30 s); the keep-alive after 3 s + 1.5 s comes later, in the
    /// defaults' order (30 s + 15 s), so the slow-consumer policy is what ends the peer.</summary>
    private static readonly WebSocketSessionOptions SlowConsumerFirst = HostileServer.ShortTimeouts with
    {
        KeepAliveInterval = TimeSpan.FromSeconds(3),
        KeepAliveTimeout = TimeSpan.FromSeconds(1.5),
    };

    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
    public async Task APeerThatNeverReadsIsClosedBy1008ThenAborted(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync(SlowConsumerFirst);
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);

        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(server.EndPoint(path), bound.Token);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo")), SocketFlags.None, bound.Token);
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(socket)); // from now on nothing is read

        // Echo requests of 64 KiB, sent whole (a cancelled send could leave half a frame behind), until the server
        // stops taking them (its echoes pile up unread) and then tears the connection down.
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[64 * 1024]);
        long sent = 0;
        Task sending = Task.Run(async () =>
        {
            try
            {
                while (true)
                {
                    Interlocked.Add(ref sent, await socket.SendAsync(frame, SocketFlags.None, bound.Token));
                }
            }
            catch (SocketException)
            {
                // The server gave the peer up and aborted the connection.
            }
        });

        long most = 0;
        bool servedMeanwhile = false;
        while (!sending.IsCompleted)
        {
            await Task.WhenAny(sending, Task.Delay(20, bound.Token)); // pacing: samples the pool while the peer pushes
            if (!servedMeanwhile && Interlocked.Read(ref sent) >= 4 << 20)
            {
                servedMeanwhile = true; // echoes are piling up by now
                await HostileServer.AssertEchoAsync(wellBehaved, "served meanwhile", bound.Token);
            }

            most = Math.Max(most, server.Pool.OutstandingBytes);
            Assert.InRange(server.Pool.OutstandingBytes, 0, 3 * frame.Length); // a frame gathered, and joined
        }

        await sending;
        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        output.WriteLine($"{path}: sent {sent / 1024} KiB of echo requests (the server discards input after its Close until the close timeout); the server held at most {most / 1024} KiB pooled; server end: {end}");
        Assert.True(servedMeanwhile);
        Assert.Equal((CloseStatus)1008, end.SentStatus); // the slow-consumer policy: the echoes piled up over the high mark
        Assert.Null(end.ReceivedStatus);
        Assert.Equal(ProtocolViolation.None, end.Violation);
        await HostileServer.AssertEchoAsync(wellBehaved, "served after", bound.Token);
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }
}
