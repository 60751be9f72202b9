using System.Buffers;

using static WebSocketCodec.Tests.Infrastructure.SessionWire;

namespace WebSocketCodec.Tests.Session;

/// <summary>The frame-aligned drain after a violation, split headers carried by the session, memory that follows the
/// bytes received, and Pongs collapsed.</summary>
public class SessionDrainTests
{
    /// <summary>A masked frame with any first byte and payload (reserved opcodes, RSV bits, bad close payloads), masked
    /// with the key 01 02 03 04.</summary>
    private static byte[] RawFrame(byte first, byte[] payload) => WireFrames.Frame(first, payload, maskKey: 0x04030201);

    private struct Recorder(List<(WebSocketOpcode Opcode, byte[] Payload)> frames) : IFrameHandler
    {
        public readonly bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            frames.Add((opcode, payload.ToArray()));
            return true;
        }
    }

    /// <summary>Feeds <paramref name="input"/> in pieces cut at <paramref name="cuts"/>, offering unconsumed bytes again
    /// (the session consumes all but what follows the end).</summary>
    private static List<OperationStatus> FeedSplit(WebSocketSession session, byte[] input, IEnumerable<int> cuts, List<(WebSocketOpcode, byte[])> frames)
    {
        input = input.ToArray(); // payloads are unmasked in place
        var statuses = new List<OperationStatus>();
        int start = 0;
        foreach (int cut in cuts.Append(input.Length))
        {
            var recorder = new Recorder(frames);
            OperationStatus status = session.Receive(input.AsSpan(start, cut - start), ref recorder, out int consumed);
            statuses.Add(status);
            if (status == OperationStatus.Done || session.State == WebSocketSessionState.Closed)
            {
                break;
            }

            Assert.Equal(cut - start, consumed); // a split header is carried inside the session
            start = cut;
        }

        return statuses;
    }

    public static TheoryData<string, byte[], ushort> ViolationsFollowedByTheirClose()
    {
        byte[] data = WireFrames.Client(WebSocketOpcode.Binary, new byte[300]);
        return new TheoryData<string, byte[], ushort>
        {
            // The peer kept writing after the violation, then answered our Close.
            { "reserved opcode", [.. RawFrame(0x83, new byte[10]), .. data, .. WireFrames.Client(WebSocketOpcode.Text, "x"u8), .. WireFrames.ClientClose(1002)], 1002 },
            { "rsv bit", [.. RawFrame(0xC2, new byte[200]), .. data, .. WireFrames.ClientClose(1002)], 1002 },
            { "bad utf-8 in a fragment", [.. WireFrames.Client(WebSocketOpcode.Text, "ok"u8, fin: false), .. WireFrames.Client(WebSocketOpcode.Continuation, [0xC0, 0x80, 0x41], fin: false), .. WireFrames.Client(WebSocketOpcode.Continuation, new byte[130]), .. WireFrames.ClientClose(1007)], 1007 },
            { "continuation outside a message", [.. WireFrames.Client(WebSocketOpcode.Continuation, new byte[5]), .. data, .. WireFrames.ClientClose(1002)], 1002 },
            { "ping too long", [.. RawFrame(0x89, new byte[126]), .. WireFrames.Client(WebSocketOpcode.Ping, "p"u8), .. WireFrames.ClientClose(1002)], 1002 },
            { "fragmented ping", [.. RawFrame(0x09, new byte[3]), .. data, .. WireFrames.ClientClose(1002)], 1002 },
        };
    }

    [Theory]
    [MemberData(nameof(ViolationsFollowedByTheirClose))]
    public void TheDrainFindsThePeersCloseBehindOtherFramesAtEverySplit(string name, byte[] input, ushort sent)
    {
        Assert.NotNull(name);
        for (int cut = 0; cut <= input.Length; cut++)
        {
            var pool = new CountingPool();
            using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
            List<OperationStatus> statuses = FeedSplit(session, input, [cut], []);

            Assert.Contains(OperationStatus.InvalidData, statuses);
            Assert.Equal(WebSocketSessionState.Closed, session.State); // the close exchange is complete
            Assert.Null(session.Timeout);
            Assert.Equal((CloseStatus)sent, session.SentCloseStatus);
            Assert.Equal((CloseStatus)sent, session.ReceivedCloseStatus); // read from the peer's (masked) Close while draining
            var close = Assert.Single(Written(session), f => f.Opcode == WebSocketOpcode.Close);
            Assert.Equal(sent, WireFrames.CloseStatusOf(close.Payload));
            Assert.Equal(0, pool.Outstanding);
        }
    }

    public static TheoryData<string, byte[], ushort> InvalidCloses() => new()
    {
        { "close code 999", WireFrames.ClientClose(999), 1002 },
        { "close code 1005 on the wire", WireFrames.ClientClose(1005), 1002 },
        { "one-byte close", RawFrame(0x88, [3]), 1002 },
        { "close of 126 bytes", RawFrame(0x88, [3, 232, .. new byte[124]]), 1002 },
        { "fragmented close", RawFrame(0x08, [3, 232]), 1002 },
        { "close with rsv", RawFrame(0xC8, [3, 232]), 1002 },
        { "close reason not utf-8", RawFrame(0x88, [3, 232, 0xFF, 0xFE]), 1007 },
    };

    [Theory]
    [MemberData(nameof(InvalidCloses))]
    public void AnInvalidCloseCompletesTheExchangeAtOnce(string name, byte[] close, ushort sent)
    {
        Assert.NotNull(name);
        byte[] input = [.. WireFrames.Client(WebSocketOpcode.Text, "before"u8), .. close, .. WireFrames.Client(WebSocketOpcode.Text, "never"u8)];
        for (int cut = 0; cut <= input.Length; cut++)
        {
            using var session = new WebSocketSession(WebSocketRole.Server);
            var frames = new List<(WebSocketOpcode, byte[])>();
            List<OperationStatus> statuses = FeedSplit(session, input, [cut], frames);

            Assert.Contains(OperationStatus.InvalidData, statuses);
            Assert.Equal(WebSocketSessionState.Closed, session.State); // no wait for another Close
            Assert.Equal((CloseStatus)sent, session.SentCloseStatus);
            Assert.Equal("before", System.Text.Encoding.UTF8.GetString(Assert.Single(frames).Item2));
            Assert.Equal(sent, WireFrames.CloseStatusOf(Assert.Single(Written(session)).Payload));
        }
    }

    [Fact]
    public void TheDrainEndsAtItsByteBoundAsACloseTimeout()
    {
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { MaxDrainBytes = 10_000 });
        FeedSplit(session, RawFrame(0x83, []), [], []);
        Assert.True(session.IsDraining);
        byte[] data = WireFrames.Client(WebSocketOpcode.Binary, new byte[1000]);
        for (int i = 0; i < 9; i++)
        {
            FeedSplit(session, data, [], []);
        }

        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        FeedSplit(session, data, [], []);
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal(SessionTimerResult.CloseTimeout, session.Timeout);
    }

    [Fact]
    public void AnUnalignableLengthDrainsToTheBoundUnlessAReadStartsWithAClose()
    {
        // A 64-bit length with its top bit set: no frame can follow it, so only the bounds end the drain...
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { MaxDrainBytes = 100 });
        FeedSplit(session, [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9], [], []);
        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        FeedSplit(session, new byte[100], [], []);
        Assert.Equal(SessionTimerResult.CloseTimeout, session.Timeout);

        // ...or a read that starts with a whole, well-formed Close: the peer's answer.
        using var answered = new WebSocketSession(WebSocketRole.Server);
        FeedSplit(answered, [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9], [], []);
        FeedSplit(answered, [0x88, 0x80, 0, 0, 0, 0], [], []); // an empty masked Close
        Assert.Equal(WebSocketSessionState.Closed, answered.State);
        Assert.Equal((CloseStatus)1005, answered.ReceivedCloseStatus);
        Assert.Null(answered.Timeout);
    }

    [Fact]
    public void ALengthARefusedHeaderAnnouncedIsNotTrustedWhenThePeerAnswers()
    {
        // A Ping announcing 126 bytes that never come, then the peer's answer to our Close in a later read.
        using var session = new WebSocketSession(WebSocketRole.Server);
        FeedSplit(session, [0x89, 0xFE, 0x00, 0x7E, 1, 2, 3, 4], [], []);
        Assert.True(session.IsDraining);
        FeedSplit(session, WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3]), [], []); // not a Close: skipped as payload
        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        FeedSplit(session, WireFrames.ClientClose(1002), [], []);
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal((CloseStatus)1002, session.ReceivedCloseStatus);
    }

    [Fact]
    public void AFailedHandlerClosesWith1011AndDrainsFromTheFrameAfterIt()
    {
        using var session = new WebSocketSession(WebSocketRole.Server);
        byte[] first = WireFrames.Client(WebSocketOpcode.Text, "boom"u8);
        byte[] input = [.. first, .. WireFrames.Client(WebSocketOpcode.Binary, new byte[200]), .. WireFrames.ClientClose(1011)];
        var thrower = new Thrower();
        Assert.Throws<InvalidOperationException>(() => session.Receive(input, ref thrower, out _));

        int used = session.OnHandlerFailed();

        Assert.Equal(first.Length, used);
        Assert.True(session.IsDraining);
        var recorder = new Recorder([]);
        Assert.Equal(OperationStatus.Done, session.Receive(input.AsSpan(used), ref recorder, out _));
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal((CloseStatus)1011, session.SentCloseStatus);
        Assert.Equal((CloseStatus)1011, session.ReceivedCloseStatus);
    }

    private struct Thrower : IFrameHandler
    {
        public readonly bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) =>
            throw new InvalidOperationException("the application failed");
    }

    [Fact]
    public void MemoryFollowsTheBytesReceivedNotTheLengthAnnounced()
    {
        var pool = new CountingPool();
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        byte[] payload = new byte[3 * 1024 * 1024 + 5];
        new Random(7).NextBytes(payload);
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, payload);
        var frames = new List<(WebSocketOpcode, byte[])>();

        var recorder = new Recorder(frames);
        session.Receive(frame.AsSpan(0, 14 + 1000), ref recorder, out _);
        Assert.True(pool.HeldBytes <= 1000 + 64 * 1024, $"{pool.HeldBytes} B held for 1000 B received");

        for (int offset = 14 + 1000; offset < frame.Length; offset += 100_000)
        {
            int length = Math.Min(100_000, frame.Length - offset);
            long receivedBefore = offset - 14;
            session.Receive(frame.AsSpan(offset, length), ref recorder, out _);
            if (frames.Count == 0)
            {
                Assert.True(pool.HeldBytes <= receivedBefore + length + 64 * 1024);
            }
        }

        Assert.Equal(payload, Assert.Single(frames).Item2);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void PingsInARowGetOnePongForTheLatest()
    {
        using var session = new WebSocketSession(WebSocketRole.Server);
        var input = new List<byte>();
        for (int i = 0; i < 100; i++)
        {
            input.AddRange(WireFrames.Client(WebSocketOpcode.Ping, [(byte)i]));
        }

        input.AddRange(WireFrames.Client(WebSocketOpcode.Text, "data"u8));
        input.AddRange(WireFrames.Client(WebSocketOpcode.Ping, "a"u8));
        input.AddRange(WireFrames.Client(WebSocketOpcode.Ping, "b"u8));
        input.AddRange(WireFrames.ClientClose(1000));
        FeedSplit(session, [.. input], [], []);

        Assert.Equal(
            [(WebSocketOpcode.Pong, "63"), (WebSocketOpcode.Pong, "62"), (WebSocketOpcode.Close, "03E8")],
            Written(session).Select(f => (f.Opcode, Convert.ToHexString(f.Payload))));
    }

    [Theory]
    [InlineData(nameof(WebSocketSessionOptions.MaxMessagePayloadLength))]
    [InlineData(nameof(WebSocketSessionOptions.MaxFramePayloadLength))]
    [InlineData(nameof(WebSocketSessionOptions.CloseTimeout))]
    public void OptionsTheCodeCannotHoldAreRefused(string option)
    {
        WebSocketSessionOptions options = option switch
        {
            nameof(WebSocketSessionOptions.MaxMessagePayloadLength) => new() { MaxMessagePayloadLength = (long)int.MaxValue + 1 },
            nameof(WebSocketSessionOptions.MaxFramePayloadLength) => new() { MaxFramePayloadLength = -1 },
            _ => new() { CloseTimeout = TimeSpan.FromSeconds(-1) },
        };
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => new WebSocketSession(WebSocketRole.Server, options));
        Assert.Equal(option, error.ParamName);
    }
}
