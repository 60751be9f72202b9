using System.Buffers;

using static WebSocketCodec.Tests.Infrastructure.SessionWire;

namespace WebSocketCodec.Tests.Session;

/// <summary>The drain after a violation (nothing parsed, bytes counted and discarded), split headers carried by the
/// session, memory that follows the bytes received, and Pongs collapsed.</summary>
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
    public void AfterAViolationNothingIsParsedNotEvenThePeersCloseAtEverySplit(string name, byte[] input, ushort sent)
    {
        // RFC 6455 §7.1.7: after failing the connection an endpoint must not process the peer's data, a responding Close
        // included. Whatever follows the violation is counted and discarded until the transport ends.
        Assert.NotNull(name);
        for (int cut = 0; cut <= input.Length; cut++)
        {
            var pool = new CountingPool();
            using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
            List<OperationStatus> statuses = FeedSplit(session, input, [cut], []);

            Assert.Contains(OperationStatus.InvalidData, statuses);
            Assert.True(session.IsDraining);
            Assert.Equal(WebSocketSessionState.CloseSent, session.State); // the driver ends at the transport's end
            Assert.Null(session.Timeout);
            Assert.Equal((CloseStatus)sent, session.SentCloseStatus);
            Assert.Null(session.ReceivedCloseStatus); // the peer's Close behind the violation is not read
            Assert.True(session.DrainedBytes > 0 && session.DrainedBytes <= input.Length, $"{session.DrainedBytes} B discarded");
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
    public void AfterAnUnalignableLengthOnlyTheBoundEndsTheDrainNotAClose()
    {
        // A 64-bit length with its top bit set: nothing after it is parsed, not even a well-formed Close.
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { MaxDrainBytes = 100 });
        FeedSplit(session, [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 9, 9, 9], [], []);
        Assert.Equal((CloseStatus)1002, session.SentCloseStatus);
        Assert.Equal(17, session.DrainedBytes); // counted from the refused header on
        FeedSplit(session, [0x88, 0x80, 0, 0, 0, 0], [], []); // an empty masked Close: discarded
        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        Assert.Null(session.ReceivedCloseStatus);
        FeedSplit(session, new byte[100], [], []);
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal(SessionTimerResult.CloseTimeout, session.Timeout);
    }

    [Fact]
    public void ARefusedCloseHeaderCutBetweenInputsCompletesTheExchangeAtOnce()
    {
        // A Close announcing 126 bytes (over the control limit), its header cut after one byte: the refused frame is the
        // peer's own Close, so nothing more is waited for.
        using var session = new WebSocketSession(WebSocketRole.Server);
        byte[] header = [0x88, 0xFE, 0x00, 0x7E, 1, 2, 3, 4];
        FeedSplit(session, header, [1], []);
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal((CloseStatus)1002, session.SentCloseStatus);
        Assert.False(session.IsDraining);
    }

    [Fact]
    public void AFailedHandlerClosesWith1011AndFailsTheConnection()
    {
        // A failed listener is this endpoint failing the connection (RFC 6455 §7.1.7), as a violation is: what follows
        // the frame it was given, the peer's Close included, is discarded.
        using var session = new WebSocketSession(WebSocketRole.Server);
        byte[] first = WireFrames.Client(WebSocketOpcode.Text, "boom"u8);
        byte[] input = [.. first, .. WireFrames.Client(WebSocketOpcode.Binary, new byte[200]), .. WireFrames.ClientClose(1011)];
        var thrower = new Thrower();
        Assert.Throws<InvalidOperationException>(() => session.Receive(input, ref thrower, out _));

        int used = session.OnHandlerFailed();

        Assert.Equal(first.Length, used);
        Assert.True(session.IsDraining);
        var frames = new List<(WebSocketOpcode, byte[])>();
        var recorder = new Recorder(frames);
        Assert.Equal(OperationStatus.NeedMoreData, session.Receive(input.AsSpan(used), ref recorder, out int consumed));
        Assert.Equal(input.Length - used, consumed);
        Assert.Empty(frames);
        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        Assert.Equal((CloseStatus)1011, session.SentCloseStatus);
        Assert.Null(session.ReceivedCloseStatus);
        Assert.Equal(input.Length - used, session.DrainedBytes);
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
