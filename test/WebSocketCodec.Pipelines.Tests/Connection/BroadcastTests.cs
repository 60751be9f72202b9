using Microsoft.Extensions.Time.Testing;
using System.Buffers.Binary;
using WebSocketCodec.Pipelines.Tests.Infrastructure;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>Groups of <see cref="WebSocketConnection"/>s: one encoding for all, listeners that broadcast to each other
/// without deadlock, a member that stops reading never holds up the others, and pooled memory comes back under
/// churn.</summary>
public sealed class BroadcastTests
{
    private sealed class Member : IAsyncDisposable
    {
        public Member(WebSocketSessionOptions? options = null, long pauseWriterThreshold = 0, Action<WebSocketFrameSender, byte[]>? onFrame = null)
        {
            Loop = new Loopback(pauseWriterThreshold);
            Connection = new WebSocketConnection(Loop.Server, WebSocketRole.Server, options);
            Listener = new RecordingListener();
            if (onFrame is not null)
            {
                Listener.OnEach = (_, _, payload) => onFrame(Connection.Sender, payload);
            }

            Run = Connection.RunAsync(Listener, Loopback.Timeout(60));
            Reader = new ServerFrameReader(Loop);
        }

        public Loopback Loop { get; }

        public WebSocketConnection Connection { get; }

        public RecordingListener Listener { get; }

        public Task<WebSocketCloseInfo> Run { get; }

        public ServerFrameReader Reader { get; }

        public async ValueTask DisposeAsync()
        {
            Connection.Abort();
            await Run.WaitAsync(TimeSpan.FromSeconds(20)).ContinueWith(_ => { });
        }
    }

    private static byte[] Numbered(int sender, int index, int length = 8)
    {
        byte[] payload = new byte[Math.Max(8, length)];
        BinaryPrimitives.WriteInt32BigEndian(payload, sender);
        BinaryPrimitives.WriteInt32BigEndian(payload.AsSpan(4), index);
        return payload;
    }

    [Fact]
    public async Task EveryMemberGetsTheMessageAsOneServerFrame()
    {
        await using Member a = new(), b = new(), c = new();
        var group = new WebSocketGroup();
        foreach (Member m in new[] { a, b, c })
        {
            group.Add(m.Connection.Driver);
        }

        byte[] text = "to everyone"u8.ToArray();
        Assert.Equal(3, group.Broadcast(WebSocketOpcode.Text, text).Sent);
        Assert.Equal(1, group.Broadcast(WebSocketOpcode.Binary, new byte[70_000]).Sent - 2);

        foreach (Member m in new[] { a, b, c })
        {
            List<(WebSocketOpcode Opcode, byte[] Payload)> frames = await m.Reader.ReadFramesAsync(2);
            Assert.Equal(WebSocketOpcode.Text, frames[0].Opcode);
            Assert.Equal(text, frames[0].Payload);
            Assert.Equal(WebSocketOpcode.Binary, frames[1].Opcode);
            Assert.Equal(70_000, frames[1].Payload.Length);
        }
    }

    [Fact]
    public async Task ListenersThatBroadcastToEachOtherNeverDeadlockAndEveryoneSeesOneOrder()
    {
        // A chat: every member's listener broadcasts what it reads, on its own read loop, to the group it is in.
        const int Members = 4, PerMember = 300;
        var group = new WebSocketGroup();
        Member[] members = [.. Enumerable.Range(0, Members).Select(_ => new Member(onFrame: (_, payload) => group.Broadcast(WebSocketOpcode.Binary, payload)))];
        try
        {
            foreach (Member m in members)
            {
                group.Add(m.Connection.Driver);
            }

            Task<List<(WebSocketOpcode Opcode, byte[] Payload)>>[] reading = [.. members.Select(m => m.Reader.ReadFramesAsync(Members * PerMember, 60))];
            await Task.WhenAll(members.Select((m, s) => Task.Run(async () =>
            {
                for (int i = 0; i < PerMember; i++)
                {
                    await m.Loop.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, Numbered(s, i)));
                }
            })));

            List<(WebSocketOpcode Opcode, byte[] Payload)>[] received = await Task.WhenAll(reading).WaitAsync(TimeSpan.FromSeconds(60));
            byte[][] order = [.. received[0].Select(f => f.Payload)];
            Assert.All(received, r => Assert.Equal(order, r.Select(f => f.Payload)));
            for (int s = 0; s < Members; s++)
            {
                int[] mine = [.. order.Where(p => BinaryPrimitives.ReadInt32BigEndian(p) == s).Select(p => BinaryPrimitives.ReadInt32BigEndian(p.AsSpan(4)))];
                Assert.Equal(Enumerable.Range(0, PerMember), mine);
            }
        }
        finally
        {
            foreach (Member m in members)
            {
                await m.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task ANonReadingMemberIsSkippedAndTheOthersGetEveryMessageInOrder()
    {
        var options = new WebSocketSessionOptions
        {
            OutboundHighWaterMark = 16 * 1024, OutboundLowWaterMark = 8 * 1024, SlowConsumerTimeout = TimeSpan.Zero,
        };
        var group = new WebSocketGroup(SlowMemberPolicy.Skip);
        await using var stuck = new Member(options, pauseWriterThreshold: 8 * 1024); // its peer never reads
        Member[] readers = [.. Enumerable.Range(0, 9).Select(_ => new Member(options))];
        try
        {
            group.Add(stuck.Connection.Driver);
            foreach (Member m in readers)
            {
                group.Add(m.Connection.Driver);
            }

            const int Messages = 2_000;
            Task<List<(WebSocketOpcode Opcode, byte[] Payload)>>[] reading = [.. readers.Select(m => m.Reader.ReadFramesAsync(Messages, 60))];
            int skipped = 0;
            for (int i = 0; i < Messages; i++)
            {
                skipped += group.Broadcast(WebSocketOpcode.Binary, Numbered(0, i, 100)).Skipped;
                if (i % 100 == 99)
                {
                    await Task.Yield(); // the readers keep up as real peers would
                }
            }

            foreach (List<(WebSocketOpcode Opcode, byte[] Payload)> frames in await Task.WhenAll(reading).WaitAsync(TimeSpan.FromSeconds(60)))
            {
                Assert.Equal(Enumerable.Range(0, Messages), frames.Select(f => BinaryPrimitives.ReadInt32BigEndian(f.Payload.AsSpan(4))));
            }

            Assert.True(skipped > 0, "the member that never reads was never skipped");
            Assert.True(group.Contains(stuck.Connection.Driver));
            Assert.False(stuck.Connection.IsWritable);
            Assert.True(stuck.Connection.UnflushedBytes < 16 * 1024 + 8 * 1024, $"{stuck.Connection.UnflushedBytes} bytes held for the stuck member");
        }
        finally
        {
            foreach (Member m in readers)
            {
                await m.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task CloseEndsAMemberFurtherBehindThanTheHardLimitWith1008AndTheOthersCarryOn()
    {
        var options = new WebSocketSessionOptions
        {
            OutboundHighWaterMark = 16 * 1024, OutboundLowWaterMark = 8 * 1024, CloseTimeout = TimeSpan.FromMilliseconds(300),
            OutboundHardLimit = 64 * 1024, SlowConsumerTimeout = TimeSpan.Zero, // 1,000 × 110 bytes pass the hard limit
        };
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        await using var stuck = new Member(options, pauseWriterThreshold: 8 * 1024);
        await using var reader = new Member(options);
        group.Add(stuck.Connection.Driver);
        group.Add(reader.Connection.Driver);

        const int Messages = 1_000;
        Task<List<(WebSocketOpcode Opcode, byte[] Payload)>> reading = reader.Reader.ReadFramesAsync(Messages, 60);
        int closed = 0;
        for (int i = 0; i < Messages; i++)
        {
            closed += group.Broadcast(WebSocketOpcode.Binary, Numbered(0, i, 100)).Closed;
            if (i % 100 == 99)
            {
                await Task.Yield();
            }
        }

        Assert.Equal(1, closed);
        Assert.False(group.Contains(stuck.Connection.Driver));
        WebSocketCloseInfo info = await stuck.Run.WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal(WebSocketEndReason.SlowConsumer, info.EndReason);
        Assert.Equal(CloseStatus.PolicyViolation, info.SentStatus);
        Assert.Equal(Enumerable.Range(0, Messages), (await reading).Select(f => BinaryPrimitives.ReadInt32BigEndian(f.Payload.AsSpan(4))));
    }

    [Fact]
    public async Task ANonReadingMemberUnderTheHardLimitIsClosedByTheSlowConsumerTimeout()
    {
        var options = new WebSocketSessionOptions
        {
            OutboundHighWaterMark = 16 * 1024, OutboundLowWaterMark = 8 * 1024, CloseTimeout = TimeSpan.FromMilliseconds(300),
            SlowConsumerTimeout = TimeSpan.FromMilliseconds(400),
        };
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        await using var stuck = new Member(options, pauseWriterThreshold: 8 * 1024);
        await using var reader = new Member(options);
        group.Add(stuck.Connection.Driver);
        group.Add(reader.Connection.Driver);

        const int Messages = 500; // 55 KB: past the high water mark and the transport's, far under the 4 MiB hard limit
        Task<List<(WebSocketOpcode Opcode, byte[] Payload)>> reading = reader.Reader.ReadFramesAsync(Messages, 60);
        int closed = 0;
        for (int i = 0; i < Messages; i++)
        {
            closed += group.Broadcast(WebSocketOpcode.Binary, Numbered(0, i, 100)).Closed;
        }

        Assert.Equal(0, closed); // queued, not closed: a burst is not a slow consumer
        WebSocketCloseInfo info = await stuck.Run.WaitAsync(TimeSpan.FromSeconds(20)); // no progress for 400 ms
        Assert.Equal(WebSocketEndReason.SlowConsumer, info.EndReason);
        Assert.Equal(CloseStatus.PolicyViolation, info.SentStatus);
        Assert.Equal(Enumerable.Range(0, Messages), (await reading).Select(f => BinaryPrimitives.ReadInt32BigEndian(f.Payload.AsSpan(4))));
        Assert.Equal(new BroadcastResult(1, 0, 0, 1), group.Broadcast(WebSocketOpcode.Binary, Numbered(0, Messages, 100)));
        Assert.False(group.Contains(stuck.Connection.Driver)); // dropped at that broadcast: it can no longer send
    }

    [Fact]
    public async Task AMemberWhosePeerReadsSlowlyButSteadilyIsNotClosedAndGetsEverything()
    {
        // The driver's clock moves only as the reader does (50 ms per 10 frames): a loaded machine that delays the
        // reader in real time cannot make it look slow (with the real clock, CI saw this member closed).
        var clock = new FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var options = new WebSocketSessionOptions
        {
            OutboundHighWaterMark = 16 * 1024, OutboundLowWaterMark = 8 * 1024, SlowConsumerTimeout = TimeSpan.FromSeconds(2),
            TimeProvider = clock,
        };
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        await using var slow = new Member(options, pauseWriterThreshold: 4 * 1024);
        group.Add(slow.Connection.Driver);

        // 110 KB, consumed 1.1 KB every 50 ms of the driver's clock: about 5 s in all, two and a half slow-consumer timeouts. The reader takes
        // what the transport holds (up to the high water mark at once) and then spends up to about 0.8 s on it: it
        // never leaves the output untouched for the whole 2 s.
        const int Messages = 1_000;
        for (int i = 0; i < Messages; i++)
        {
            Assert.Equal(new BroadcastResult(1, 0, 0, 0), group.Broadcast(WebSocketOpcode.Binary, Numbered(0, i, 100)));
        }

        var got = new List<int>();
        while (got.Count < Messages)
        {
            if (slow.Run.IsCompleted)
            {
                WebSocketCloseInfo info = await slow.Run;
                Assert.Fail($"the member ended after {got.Count} messages: {info.EndReason}, sent {info.SentStatus}");
            }

            foreach ((WebSocketOpcode _, byte[] payload) in await slow.Reader.ReadFramesAsync(Math.Min(10, Messages - got.Count), 20))
            {
                got.Add(BinaryPrimitives.ReadInt32BigEndian(payload.AsSpan(4)));
            }

            clock.Advance(TimeSpan.FromMilliseconds(50)); // a slow reader
            await Task.Delay(1);
        }

        Assert.Equal(Enumerable.Range(0, Messages), got);
        Assert.False(slow.Run.IsCompleted);
        Assert.True(group.Contains(slow.Connection.Driver));
        Assert.Equal(WebSocketSessionState.Open, slow.Connection.State);
    }

    [Fact]
    public async Task MembersComingGoingAndDyingWhileBroadcastsRunLeakNothing()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        using var stop = new CancellationTokenSource();
        Task broadcaster = Task.Run(async () =>
        {
            int i = 0;
            while (!stop.IsCancellationRequested)
            {
                group.Broadcast(WebSocketOpcode.Binary, Numbered(0, i++, 200));
                if (i % 50 == 0)
                {
                    await Task.Yield();
                }
            }
        });

        var random = new Random(11);
        for (int round = 0; round < 40; round++)
        {
            Member[] members = [.. Enumerable.Range(0, 5).Select(_ => new Member(pauseWriterThreshold: 4 * 1024))];
            Task[] draining = [.. members.Where((_, k) => k % 2 == 0).Select(m => m.Loop.DiscardToEndAsync())];
            foreach (Member m in members)
            {
                group.Add(m.Connection.Driver);
            }

            await Task.Delay(random.Next(1, 5)); // pacing: let broadcasts reach them
            foreach (Member m in members)
            {
                switch (random.Next(3))
                {
                    case 0:
                        group.Remove(m.Connection.Driver);
                        await m.DisposeAsync();
                        break;
                    case 1:
                        await m.Loop.FinAsync(); // the peer goes away without a Close
                        await m.DisposeAsync();
                        break;
                    default:
                        await m.DisposeAsync(); // aborted while still a member
                        break;
                }
            }

            await Task.WhenAll(draining).WaitAsync(TimeSpan.FromSeconds(20)).ContinueWith(_ => { });
        }

        stop.Cancel();
        await broadcaster;
        group.Broadcast(WebSocketOpcode.Binary, [1]); // drops the members that ended
        Assert.Equal(0, group.Count);
        await Eventually.True(() => pool.Outstanding == 0);
        Assert.Equal(0, pool.BadReturns);
        Assert.True(pool.Rented > 100, $"only {pool.Rented} broadcasts ran");
    }
}
