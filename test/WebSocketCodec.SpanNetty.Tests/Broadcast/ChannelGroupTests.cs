using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing;

namespace WebSocketCodec.SpanNetty.Tests.Broadcast;

/// <summary>SpanNetty websockets in a group, read by .NET's <see cref="ClientWebSocket"/>: listeners broadcasting from
/// two event loops reach every member in one order, a burst far past the high water mark closes nobody, and a peer that
/// never reads is closed while the others carry on.
/// Buffers are checked by SpanNetty's leak detector (paranoid) and a counting pool.</summary>
public sealed class ChannelGroupTests : LeakCheckedTests
{
    private sealed class Relay(WebSocketFrameSender sender, WebSocketGroup group, ConcurrentQueue<WebSocketCloseInfo> ended) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            if (payload.Length == 0)
            {
                return;
            }

            group.Broadcast(opcode, payload);
        }

        public void OnClose(WebSocketCloseInfo info)
        {
            group.Remove(sender.Driver);
            ended.Enqueue(info);
        }
    }

    /// <summary>A server whose every websocket joins <paramref name="group"/> and relays what it reads to it.</summary>
    private static Task<CallbacksServer> StartJoiningAsync(WebSocketGroup group, ConcurrentQueue<WebSocketCloseInfo> ended) =>
        CallbacksServer.StartAsync(sender =>
        {
            group.Add(sender.Driver);
            return new Relay(sender, group, ended);
        }, WebSocketSessionOptions.Default);

    [Fact]
    public async Task ListenersOnTwoEventLoopsBroadcastToEveryMemberInOneOrder()
    {
        const int Members = 6, PerMember = 200;
        var pool = new CountingPool();
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool);
        var ended = new ConcurrentQueue<WebSocketCloseInfo>();
        await using CallbacksServer server = await StartJoiningAsync(group, ended);

        var clients = new List<ClientWebSocket>();
        for (int i = 0; i < Members; i++)
        {
            var client = new ClientWebSocket();
            await client.ConnectAsync(server.Url, RawHttp.Timeout());
            clients.Add(client);
        }

        await Eventually.True(() => group.Count == Members);
        Task<List<byte[]>>[] reading = [.. clients.Select(c => ReceivedMessages.ReceiveAsync(c, Members * PerMember))];
        await Task.WhenAll(clients.Select((client, s) => Task.Run(async () =>
        {
            byte[] message = new byte[8];
            for (int i = 0; i < PerMember; i++)
            {
                BinaryPrimitives.WriteInt32BigEndian(message, s);
                BinaryPrimitives.WriteInt32BigEndian(message.AsSpan(4), i);
                await client.SendAsync(message, WebSocketMessageType.Binary, true, RawHttp.Timeout());
            }
        })));

        List<byte[]>[] received = await Task.WhenAll(reading).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.All(received, r => Assert.Equal(received[0], r));
        for (int s = 0; s < Members; s++)
        {
            int[] mine = [.. received[0].Where(p => BinaryPrimitives.ReadInt32BigEndian(p) == s).Select(p => BinaryPrimitives.ReadInt32BigEndian(p.AsSpan(4)))];
            Assert.Equal(Enumerable.Range(0, PerMember), mine);
        }

        foreach (ClientWebSocket client in clients)
        {
            await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
            client.Dispose();
        }

        await Eventually.True(() => ended.Count == Members);
        Assert.All(ended, info => Assert.True(info.IsClean, info.ToString()));
        Assert.Equal(0, group.Count);
        await Eventually.True(() => pool.Outstanding == 0);
    }

    [Fact]
    public async Task ABurstFarPastTheHighWaterMarkReachesAReaderThatStartsLateAndClosesNobody()
    {
        // 2,000 messages of 256 B at once from the test's thread (off the event loop, so they queue): 520 KB, eight
        // times the 64 KiB high water mark. The reader starts only after the burst; the rule before this one closed it
        // at the first frame past the mark.
        const int Messages = 2_000;
        var pool = new CountingPool();
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool);
        var ended = new ConcurrentQueue<WebSocketCloseInfo>();
        await using CallbacksServer server = await StartJoiningAsync(group, ended);
        using var client = new ClientWebSocket();
        await client.ConnectAsync(server.Url, RawHttp.Timeout());
        await Eventually.True(() => group.Count == 1);

        byte[] payload = new byte[256];
        int closed = 0;
        for (int i = 0; i < Messages; i++)
        {
            BinaryPrimitives.WriteInt32BigEndian(payload, i);
            closed += group.Broadcast(WebSocketOpcode.Binary, payload).Closed;
        }

        Assert.Equal(0, closed);
        List<byte[]> received = await ReceivedMessages.ReceiveAsync(client, Messages).WaitAsync(TimeSpan.FromSeconds(60));
        Assert.Equal(Enumerable.Range(0, Messages), received.Select(m => BinaryPrimitives.ReadInt32BigEndian(m)));
        Assert.Equal(1, group.Count);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
        await Eventually.True(() => ended.Count == 1);
        Assert.True(Assert.Single(ended).IsClean);
        await Eventually.True(() => pool.Outstanding == 0);
    }

    [Fact]
    public async Task APeerThatNeverReadsIsClosedWith1008AndTheOthersGetEveryMessage()
    {
        const int Messages = 500;
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        var ended = new ConcurrentQueue<WebSocketCloseInfo>();
        var joined = new ConcurrentQueue<WebSocketFrameSender>();
        var session = WebSocketSessionOptions.Default with
        {
            OutboundHighWaterMark = 64 * 1024, OutboundLowWaterMark = 32 * 1024, CloseTimeout = TimeSpan.FromSeconds(1),
            OutboundHardLimit = 256 * 1024, // the silent member falls this far behind within the rounds
        };
        await using CallbacksServer server = await CallbacksServer.StartAsync(sender =>
        {
            joined.Enqueue(sender);
            return new Relay(sender, group, ended);
        }, session);

        using var stuck = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await stuck.ConnectAsync(server.EndPoint);
        await stuck.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws")), SocketFlags.None);
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(stuck)); // from now on nothing is read
        await Eventually.True(() => joined.Count == 1);
        WebSocketFrameSender slow = Assert.Single(joined);
        // The kernel's buffers first: fill until TrySend keeps refusing (it takes again, for a moment, after each filler
        // while the channel writes it); at most 64 MiB, or the backpressure is broken.
        byte[] filler = new byte[64 * 1024];
        await FillUntilRefused.RunAsync(() => slow.TrySend(WebSocketOpcode.Binary, filler), filler.Length, maxBytes: 64L << 20);

        var readers = new List<ClientWebSocket>();
        for (int i = 0; i < 4; i++)
        {
            var client = new ClientWebSocket();
            await client.ConnectAsync(server.Url, RawHttp.Timeout());
            readers.Add(client);
        }

        await Eventually.True(() => joined.Count == 5);
        foreach (WebSocketFrameSender sender in joined)
        {
            group.Add(sender.Driver);
        }

        int closed = await PacedBroadcast.UntilASlowMemberIsClosedAsync(group, readers, Messages, length: 256, maxRounds: 20);

        Assert.Equal(1, closed);
        await Eventually.True(() => ended.Count == 1);
        WebSocketCloseInfo info = Assert.Single(ended);
        Assert.Equal(WebSocketEndReason.SlowConsumer, info.EndReason);
        Assert.Equal(CloseStatus.PolicyViolation, info.SentStatus);
        foreach (ClientWebSocket client in readers)
        {
            await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
            client.Dispose();
        }

        await Eventually.True(() => ended.Count == 5);
    }
}
