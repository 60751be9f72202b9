using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Broadcast;

/// <summary>A group of websockets on the Kestrel endpoint, HTTP/1.1 and HTTP/2 members together, read by independent
/// clients (.NET's <see cref="ClientWebSocket"/>), with one member whose peer never reads.</summary>
public sealed class GroupEndpointTests
{
    private const int Messages = 2_000;
    private const int MessageLength = 1024;

    [Fact]
    public async Task ANonReadingMemberAmongAHundredIsClosedAndTheOthersGetEveryMessageInOrder()
    {
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        var ended = new ConcurrentQueue<WebSocketCloseInfo>();
        var filled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket(
                "/room",
                async (context, connection) =>
                {
                    if (context.Request.Query.ContainsKey("never-reads"))
                    {
                        // The kernel's buffers on loopback take megabytes: fill them first (and the transport's), so the
                        // test needs no megabytes of broadcasts to find this peer slow. TrySend takes again for a moment
                        // after each filler while the transport takes it: fill until it keeps refusing; at most 64 MiB,
                        // or the backpressure is broken (the test fails with that, below).
                        byte[] filler = new byte[64 * 1024];
                        try
                        {
                            await FillUntilRefused.RunAsync(() => connection.Sender.TrySend(WebSocketOpcode.Binary, filler), filler.Length, maxBytes: 64L << 20);
                            filled.TrySetResult();
                        }
                        catch (Exception error)
                        {
                            filled.TrySetException(error);
                            throw;
                        }
                    }

                    group.Add(connection.Driver);
                    try
                    {
                        ended.Enqueue(await connection.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (_, _, _) => { })));
                    }
                    finally
                    {
                        group.Remove(connection.Driver);
                    }
                },
                options => options.Session = options.Session with
                {
                    OutboundHighWaterMark = 256 * 1024, OutboundLowWaterMark = 128 * 1024, CloseTimeout = TimeSpan.FromSeconds(1),
                    OutboundHardLimit = 512 * 1024, // the silent member falls this far behind within the rounds
                }),
            sharedPort: true);

        // 50 members over HTTP/1.1, 49 as streams of one HTTP/2 connection, and one raw peer that never reads.
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        var clients = new List<ClientWebSocket>();
        for (int i = 0; i < 99; i++)
        {
            ClientWebSocket client = i % 2 == 0 ? new ClientWebSocket() : Http2Requests.Client();
            await client.ConnectAsync(host.WebSocketUrl("/room"), i % 2 == 0 ? null : invoker, RawHttp.Timeout());
            clients.Add(client);
        }

        using var stuck = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await stuck.ConnectAsync(host.EndPoint);
        await stuck.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/room?never-reads")), SocketFlags.None);
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(stuck)); // from now on nothing is read
        await filled.Task.WaitAsync(TimeSpan.FromSeconds(60)); // the filling's own bounds fail it first
        await Eventually.True(() => group.Count == 100);

        int closed = await PacedBroadcast.UntilASlowMemberIsClosedAsync(group, clients, Messages, MessageLength);

        Assert.Equal(1, closed);
        await Eventually.True(() => ended.Count == 1);
        WebSocketCloseInfo slow = Assert.Single(ended);
        Assert.Equal(WebSocketEndReason.SlowConsumer, slow.EndReason);
        Assert.Equal(CloseStatus.PolicyViolation, slow.SentStatus);
        Assert.Equal(99, group.Count);
        foreach (ClientWebSocket client in clients)
        {
            await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
            client.Dispose();
        }

        await Eventually.True(() => group.Count == 0);
    }
}
