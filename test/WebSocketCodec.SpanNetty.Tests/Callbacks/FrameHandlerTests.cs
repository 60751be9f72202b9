using System.Text;
using DotNetty.Buffers;
using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Callbacks;

/// <summary>The websocket handler in an EmbeddedChannel: decoding in place from any split, the violation funnel (one
/// Close with the right status, then the drain), the close handshake, control frames and the session's timers.</summary>
public sealed class FrameHandlerTests : LeakCheckedTests
{
    private Recording? _callbacks;

    private EmbeddedChannel Open(WebSocketRole role = WebSocketRole.Server, WebSocketSessionOptions? session = null, bool echo = true) =>
        new(new WebSocketChannelHandler(role, sender => _callbacks = new Recording(sender, echo), session));

    public static TheoryData<string, byte[], int> Violations => new()
    {
        { "RSV1 without an extension", WireFrames.Client(0xC2, [1]), 1002 },
        { "reserved opcode 3", WireFrames.Client(0x83, []), 1002 },
        { "reserved control opcode 11", WireFrames.Client(0x8B, []), 1002 },
        { "ping over 125 bytes", WireFrames.Client(0x89, new byte[126]), 1002 },
        { "fragmented ping", WireFrames.Client(0x09, []), 1002 },
        { "continuation with nothing to continue", WireFrames.Client(WebSocketOpcode.Continuation, [1]), 1002 },
        { "new message inside a fragmented one", [.. WireFrames.Client(WebSocketOpcode.Text, "a"u8, fin: false), .. WireFrames.Client(WebSocketOpcode.Text, "b"u8)], 1002 },
        { "unmasked frame at a server", WireFrames.Server(WebSocketOpcode.Binary, [1]), 1002 },
        { "non-minimal length", [0x82, 0xFE, 0x00, 0x05, 1, 2, 3, 4, 5, 6, 7, 8, 9], 1002 },
        { "close with one byte", WireFrames.Client(WebSocketOpcode.Close, [3]), 1002 },
        { "close 1005 on the wire", WireFrames.ClientClose(1005), 1002 },
        { "close 999", WireFrames.ClientClose(999), 1002 },
        { "invalid UTF-8 text", WireFrames.Client(WebSocketOpcode.Text, [0xC0, 0x80]), 1007 },
        { "invalid UTF-8 across fragments", [.. WireFrames.Client(WebSocketOpcode.Text, [0xE2, 0x82], fin: false), .. WireFrames.Client(WebSocketOpcode.Continuation, [0x41])], 1007 },
        { "invalid UTF-8 close reason", WireFrames.Client(WebSocketOpcode.Close, [0x03, 0xE8, 0xFF]), 1007 },
        { "frame over the limit", [0x82, 0xFF, 0, 0, 0, 0, 0x10, 0, 0, 0], 1009 },
    };

    [Theory]
    [MemberData(nameof(Violations))]
    public void EveryViolationGetsExactlyOneCloseWithItsStatusThenTheChannelClosesWhenTheExchangeIsComplete(string rule, byte[] wire, int status)
    {
        EmbeddedChannel channel = Open();
        var handler = channel.Pipeline.Get<WebSocketChannelHandler>();
        channel.WriteInbound(Wire.Buffer([.. WireFrames.Client(WebSocketOpcode.Text, "before"u8), .. wire]));
        if (wire[0] == 0x88)
        {
            // The violating frame was the peer's own Close: the exchange is complete, the channel closes at once.
            channel.RunPendingTasks();
        }
        else
        {
            // More violations, then the peer's answer: no second Close, nothing decoded after the first violation, and
            // the answer not processed (RFC 6455 §7.1.7): the channel stays open until the peer's end (its FIN closes a
            // socket channel; this channel, which cannot half-close, is closed here as that would) or the bounds.
            channel.WriteInbound(Wire.Buffer(WireFrames.Client(0x83, [])));
            channel.WriteInbound(Wire.Buffer(WireFrames.ClientClose((ushort)status)));
            channel.RunPendingTasks();
            Assert.True(channel.IsActive, $"{rule}: the channel must stay open until the peer's end (or the drain's bounds)");
            _ = channel.CloseAsync();
            channel.RunPendingTasks();
        }

        // The echo of what came before the violation (a first fragment too), then one Close, last.
        var frames = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client);
        Assert.Equal("before", Encoding.UTF8.GetString(frames[0].Payload));
        Assert.Single(frames, f => f.Opcode == WebSocketOpcode.Close);
        Assert.Equal(WebSocketOpcode.Close, frames[^1].Opcode);
        Assert.True(status == WireFrames.CloseStatusOf(frames[^1].Payload), $"{rule}: {WireFrames.CloseStatusOf(frames[^1].Payload)}");
        Completed.Settle(channel, handler.Completion);
        Assert.False(channel.IsActive);
        WebSocketCloseInfo info = Completed.Result(handler.Completion);
        Assert.NotEqual(ProtocolViolation.None, info.Violation);
        Assert.Equal((CloseStatus)status, info.SentStatus);
        Assert.Null(info.ReceivedStatus);
        Assert.Same(info, _callbacks!.Closed);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void FramesCutIntoRandomPiecesAreDeliveredWholeAndEchoedInOrderWithPongs()
    {
        var random = new Random(6455);
        var wire = new List<byte>();
        var expected = new List<(WebSocketOpcode, bool, byte[])>();
        for (int i = 0; i < 300; i++)
        {
            byte[] payload = new byte[random.Next(4) switch { 0 => random.Next(0, 10), 1 => random.Next(100, 130), 2 => random.Next(126, 700), _ => random.Next(60_000, 70_000) }];
            random.NextBytes(payload);
            if (random.Next(8) == 0)
            {
                byte[] ping = [(byte)i, .. payload.AsSpan(0, Math.Min(payload.Length, 124))]; // each Ping's payload its own
                wire.AddRange(WireFrames.Client(WebSocketOpcode.Ping, ping));
                expected.Add((WebSocketOpcode.Ping, true, ping));
                continue;
            }

            bool fragmented = random.Next(4) == 0;
            wire.AddRange(WireFrames.Client(WebSocketOpcode.Binary, payload, fin: !fragmented));
            expected.Add((WebSocketOpcode.Binary, !fragmented, payload));
            if (fragmented)
            {
                wire.AddRange(WireFrames.Client(WebSocketOpcode.Continuation, payload));
                expected.Add((WebSocketOpcode.Continuation, true, payload));
            }
        }

        EmbeddedChannel channel = Open();
        byte[] bytes = [.. wire];
        var output = new List<byte>();
        for (int offset = 0; offset < bytes.Length;)
        {
            int length = Math.Min(bytes.Length - offset, random.Next(3) == 0 ? random.Next(1, 16) : random.Next(1, 9000));
            channel.WriteInbound(Wire.Buffer(bytes.AsSpan(offset, length)));
            output.AddRange(Wire.Outbound(channel));
            offset += length;
        }

        // Every data frame echoed in order. Pings in a row may share one Pong, for the latest (RFC 6455 §5.5.3): each
        // Pong answers a later Ping than the one before it, and the last Ping before a data frame is always answered
        // before that frame's echo.
        var frames = WireFrames.Read(output.ToArray(), WebSocketRole.Client);
        int next = 0;
        foreach (var frame in frames)
        {
            if (frame.Opcode == WebSocketOpcode.Pong)
            {
                while (next < expected.Count && expected[next].Item1 == WebSocketOpcode.Ping && !expected[next].Item3.AsSpan().SequenceEqual(frame.Payload))
                {
                    next++; // a Ping collapsed into a later one's Pong
                }

                Assert.True(next < expected.Count && expected[next].Item1 == WebSocketOpcode.Ping, "a Pong that answers no later Ping of its run");
            }
            else
            {
                Assert.True(expected[next].Item1 != WebSocketOpcode.Ping, $"the Ping before data frame {next} was not answered");
                Assert.Equal(expected[next].Item1, frame.Opcode);
                Assert.Equal(expected[next].Item2, frame.Fin);
                Assert.True(expected[next].Item3.AsSpan().SequenceEqual(frame.Payload), $"frame {next}");
            }

            next++;
        }

        Assert.Equal(expected.Count, next);

        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void ACompositeBufferIsDecodedSegmentBySegment()
    {
        EmbeddedChannel channel = Open();
        byte[] first = WireFrames.Client(WebSocketOpcode.Text, "one"u8);
        byte[] second = WireFrames.Client(WebSocketOpcode.Binary, new byte[300]);
        byte[] all = [.. first, .. second];
        CompositeByteBuffer composite = PooledByteBufferAllocator.Default.CompositeBuffer();
        composite.AddComponents(true, Wire.Buffer(all.AsSpan(0, 5)), Wire.Buffer(all.AsSpan(5, 7)), Wire.Buffer(all.AsSpan(12)));
        channel.WriteInbound(composite);
        var frames = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client);
        Assert.Equal(["one", new string('\0', 300)], frames.Select(f => Encoding.UTF8.GetString(f.Payload)));
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void ThePeersCloseIsAnsweredWithItsStatusAndTheServerClosesTheChannel()
    {
        EmbeddedChannel channel = Open();
        var handler = channel.Pipeline.Get<WebSocketChannelHandler>();
        channel.WriteInbound(Wire.Buffer([.. WireFrames.Client(WebSocketOpcode.Ping, "p"u8), .. WireFrames.ClientClose(4000, "bye")]));
        Completed.Settle(channel, handler.Completion);
        var frames = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client);
        Assert.Equal([WebSocketOpcode.Pong, WebSocketOpcode.Close], frames.Select(f => f.Opcode));
        Assert.Equal(4000, WireFrames.CloseStatusOf(frames[1].Payload));
        Assert.False(channel.IsActive);
        WebSocketCloseInfo info = Completed.Result(handler.Completion);
        Assert.True(info.IsClean);
        Assert.Equal("bye", info.ReceivedReason);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void OurCloseWaitsForThePeersAnswerAndDataFramesStop()
    {
        EmbeddedChannel channel = Open();
        var handler = channel.Pipeline.Get<WebSocketChannelHandler>();
        Task<WebSocketCloseInfo> closing = handler.Completion;
        _callbacks!.OnLoop(channel, WebSocketRole.Server, sender =>
        {
            _ = sender.CloseAsync((CloseStatus)1001, "going");
            Assert.False(sender.CanSend);
            // Every tier drops its frames after our Close instead of failing the close: nothing of them goes out.
            Assert.False(sender.Send(WebSocketOpcode.Text, "late"u8));
            ReservedFrame reserved = sender.Reserve(WebSocketOpcode.Binary, 4);
            reserved.Payload.Fill(1);
            reserved.Commit();
            IByteBuffer prefixed = sender.AllocatePrefixed(3);
            prefixed.WriteBytes(new byte[] { 7, 8, 9 });
            Assert.False(sender.SendPrefixed(prefixed, WebSocketOpcode.Binary));
            Assert.Equal(0, prefixed.ReferenceCount); // released
            BulkFrameWriter bulk = sender.BeginBulk();
            bulk.Add(WebSocketOpcode.Binary, [1, 2]);
            bulk.Complete();
            Assert.Throws<ArgumentException>(() => sender.Send(WebSocketOpcode.Close, [3, 0xE8])); // only CloseAsync sends a Close
        });
        channel.WriteInbound(Wire.Buffer([.. WireFrames.Client(WebSocketOpcode.Text, "in flight"u8), .. WireFrames.Client(WebSocketOpcode.Ping, []), .. WireFrames.ClientClose(1001)]));
        Completed.Settle(channel, handler.Completion);
        var frames = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client);
        // Our Close, no echo after it, a Pong for the Ping (answered until the peer's Close), no second Close.
        Assert.Equal([WebSocketOpcode.Close, WebSocketOpcode.Pong], frames.Select(f => f.Opcode));
        Assert.Equal("going", Encoding.UTF8.GetString(frames[0].Payload.AsSpan(2)));
        Completed.Settle(channel, handler.Completion);
        Assert.False(channel.IsActive);
        Assert.Same(Completed.Result(closing), Completed.Result(handler.Completion));
        Assert.True(Completed.Result(closing).IsClean);
        channel.FinishAndReleaseAll();
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void TheDriverOwnsTheWaterMarksNotTheChannel(bool echo)
    {
        EmbeddedChannel channel = Open(echo: echo, session: new WebSocketSessionOptions { OutboundHighWaterMark = 1024, OutboundLowWaterMark = 512 });
        var handler = channel.Pipeline.Get<WebSocketChannelHandler>();
        channel.WriteInbound(Wire.Buffer(WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3])));
        Assert.Equal(echo ? 1 : 0, WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client).Count);

        // Bytes of someone else's waiting in the channel above the session's high water mark (written, not flushed):
        // the channel's own marks are out of reach, so SpanNetty never reports it unwritable before the driver, whose
        // output (taken at once here) is writable; reading goes on.
        _ = channel.WriteAsync(Unpooled.WrappedBuffer(new byte[4096]));
        Assert.True(channel.IsWritable);
        Assert.True(handler.Driver.IsWritable);
        Assert.True(channel.Configuration.IsAutoRead);
        channel.Flush();
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AThrowingCallbackClosesWith1011()
    {
        EmbeddedChannel channel = Open(echo: false);
        var handler = channel.Pipeline.Get<WebSocketChannelHandler>();
        _callbacks!.OnEach = (_, _, _) => throw new InvalidOperationException("application bug");
        channel.WriteInbound(Wire.Buffer(WireFrames.Client(WebSocketOpcode.Text, "x"u8)));
        channel.WriteInbound(Wire.Buffer(WireFrames.ClientClose(1011)));
        channel.RunPendingTasks();
        var frame = Assert.Single(WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client));
        Assert.Equal(1011, WireFrames.CloseStatusOf(frame.Payload));
        Assert.True(channel.IsActive); // a failed callback fails the connection: the peer's Close is not processed
        _ = channel.CloseAsync(); // the peer's end
        Completed.Settle(channel, handler.Completion);
        WebSocketCloseInfo info = Completed.Result(handler.Completion);
        Assert.IsType<InvalidOperationException>(info.Error);
        Assert.Null(info.ReceivedStatus);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void TheThreeTiersWriteTheSameFramesAsTheCoreEncoder()
    {
        EmbeddedChannel channel = Open(echo: false);
        byte[] big = new byte[70_000];
        new Random(3).NextBytes(big);
        _callbacks!.OnLoop(channel, WebSocketRole.Server, sender =>
        {
            ReservedFrame reserved = sender.Reserve(WebSocketOpcode.Text, 5);
            "tier1"u8.CopyTo(reserved.Payload);
            reserved.Commit();

            IByteBuffer prefixed = sender.AllocatePrefixed(big.Length);
            prefixed.WriteBytes(big);
            sender.SendPrefixed(prefixed, WebSocketOpcode.Binary);

            BulkFrameWriter bulk = sender.BeginBulk();
            bulk.Add(WebSocketOpcode.Binary, [1], fin: false);
            bulk.Add(WebSocketOpcode.Continuation, [2]);
            bulk.Add(WebSocketOpcode.Text, "tier3"u8);
            bulk.Complete();
            sender.Send(WebSocketOpcode.Binary, [9, 9]);
        });

        byte[] expected = [.. WireFrames.Server(WebSocketOpcode.Text, "tier1"u8), .. WireFrames.Server(WebSocketOpcode.Binary, big),
            .. WireFrames.Server(WebSocketOpcode.Binary, [1], fin: false), .. WireFrames.Server(WebSocketOpcode.Continuation, [2]),
            .. WireFrames.Server(WebSocketOpcode.Text, "tier3"u8), .. WireFrames.Server(WebSocketOpcode.Binary, [9, 9])];
        Assert.Equal(expected, Wire.Outbound(channel));
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AClientMasksWhatItSendsAndRefusesMaskedFrames()
    {
        EmbeddedChannel channel = Open(WebSocketRole.Client, echo: false);
        _callbacks!.OnLoop(channel, WebSocketRole.Client, sender =>
        {
            sender.Send(WebSocketOpcode.Text, "masked"u8);
            IByteBuffer prefixed = sender.AllocatePrefixed(3);
            prefixed.WriteBytes(new byte[] { 7, 8, 9 });
            sender.SendPrefixed(prefixed, WebSocketOpcode.Binary);
        });
        byte[] output = Wire.Outbound(channel);
        Assert.True((output[1] & 0x80) != 0);
        var frames = WireFrames.Read(output, WebSocketRole.Server);
        Assert.Equal("masked", Encoding.UTF8.GetString(frames[0].Payload));
        Assert.Equal([7, 8, 9], frames[1].Payload);

        channel.WriteInbound(Wire.Buffer(WireFrames.Client(WebSocketOpcode.Text, "server frames are not masked"u8)));
        var close = Assert.Single(WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Server));
        Assert.Equal(1002, WireFrames.CloseStatusOf(close.Payload));
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void OutOfOrderFragmentsAndOffLoopSendsAreRefused()
    {
        EmbeddedChannel channel = Open(echo: false);
        IByteBuffer noRoom = PooledByteBufferAllocator.Default.Buffer(8);
        noRoom.WriteBytes(new byte[] { 1 });
        _callbacks!.OnLoop(channel, WebSocketRole.Server, sender =>
        {
            Assert.Throws<InvalidOperationException>(() => sender.Send(WebSocketOpcode.Continuation, [1]));
            sender.Send(WebSocketOpcode.Text, "a"u8, fin: false);
            Assert.Throws<InvalidOperationException>(() => sender.Send(WebSocketOpcode.Binary, [1]));
            Assert.ThrowsAny<ArgumentException>(() => sender.Send(WebSocketOpcode.Ping, new byte[126]));
            Assert.Throws<ArgumentException>(() => sender.SendPrefixed(noRoom, WebSocketOpcode.Continuation));
        });
        // Off the read loop the synchronous tiers are refused (the driver's rule: other threads use SendAsync).
        Assert.Throws<InvalidOperationException>(() => _callbacks.Sender.Send(WebSocketOpcode.Text, "x"u8));
        Assert.Equal(0, noRoom.ReferenceCount); // released: ownership passed
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public async Task KeepAlivePingsGoOutAndAnUnansweredOneClosesTheChannel()
    {
        EmbeddedChannel channel = Open(session: new WebSocketSessionOptions
        {
            KeepAliveInterval = TimeSpan.FromMilliseconds(50),
            KeepAliveTimeout = TimeSpan.FromMilliseconds(100),
        });
        var handler = channel.Pipeline.Get<WebSocketChannelHandler>();
        // The handler schedules on the channel's event loop, which runs on the wall clock: run what is due until closed.
        await Eventually.True(() => RunDueTasks(channel) && !channel.IsActive);

        var frames = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client);
        Assert.Equal(WebSocketOpcode.Ping, frames[0].Opcode);
        Assert.Equal(WebSocketOpcode.Close, frames[^1].Opcode);
        Assert.Equal(1001, WireFrames.CloseStatusOf(frames[^1].Payload));
        Assert.False(channel.IsActive);
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, Completed.Result(channel, handler.Completion).EndReason);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void TheMessageApiJoinsFragmentsAndPassesWholeFramesStraight()
    {
        var messages = new List<(System.Net.WebSockets.WebSocketMessageType, string)>();
        var channel = new EmbeddedChannel(new WebSocketChannelHandler(WebSocketRole.Server,
            sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, (s, type, payload) =>
            {
                messages.Add((type, Encoding.UTF8.GetString(payload)));
                s.Send(type == System.Net.WebSockets.WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);
            })));
        channel.WriteInbound(Wire.Buffer([
            .. WireFrames.Client(WebSocketOpcode.Text, "whole"u8),
            .. WireFrames.Client(WebSocketOpcode.Text, "fr"u8, fin: false),
            .. WireFrames.Client(WebSocketOpcode.Ping, []),
            .. WireFrames.Client(WebSocketOpcode.Continuation, "ag"u8, fin: false),
            .. WireFrames.Client(WebSocketOpcode.Continuation, "ments"u8)]));
        Assert.Equal([(System.Net.WebSockets.WebSocketMessageType.Text, "whole"), (System.Net.WebSockets.WebSocketMessageType.Text, "fragments")], messages);
        var frames = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client);
        Assert.Equal(["whole", "", "fragments"], frames.Select(f => Encoding.UTF8.GetString(f.Payload)));
        channel.FinishAndReleaseAll();
    }

    /// <summary>Runs the embedded channel's due scheduled tasks and pending tasks; returns true (for conditions).</summary>
    internal static bool RunDueTasks(EmbeddedChannel channel)
    {
        channel.RunScheduledPendingTasks();
        channel.RunPendingTasks();
        return true;
    }
}
