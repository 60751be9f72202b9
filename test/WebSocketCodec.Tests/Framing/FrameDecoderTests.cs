using System.Buffers;
using System.Text;

namespace WebSocketCodec.Tests.Framing;

public class FrameDecoderTests
{
    private const int Key = 0x3D21FA37; // 37 fa 21 3d on the wire

    /// <summary>A frame as a peer would send it, with any bits the test wants, masked with <see cref="Key"/> when
    /// <paramref name="masked"/>.</summary>
    private static byte[] Frame(int opcode, byte[] payload, bool fin = true, bool masked = true, int rsv = 0) =>
        WireFrames.Frame((WebSocketOpcode)opcode, payload, fin, rsv, masked ? Key : null);

    private static byte[] Close(ushort code, string reason = "") => WireFrames.ClosePayload(code, reason);

    /// <summary>Feeds frames one by one through ReadFrame; returns the first failure, or None.</summary>
    private static ProtocolViolation Run(FrameDecoder decoder, params byte[][] frames)
    {
        foreach (byte[] frame in frames)
        {
            var status = decoder.ReadFrame(frame, out var header, out _, out _);
            if (status == OperationStatus.InvalidData)
            {
                return decoder.Violation;
            }

            Assert.Equal(OperationStatus.Done, status);
            Assert.Equal(frame.Length, header.FrameLength);
        }

        return ProtocolViolation.None;
    }

    public static TheoryData<string, byte[][], ProtocolViolation, CloseStatus> ServerViolations => new()
    {
        { "RSV1 without extension", [Frame(1, "a"u8.ToArray(), rsv: 4)], ProtocolViolation.ReservedBitsSet, CloseStatus.ProtocolError },
        { "RSV2 on ping", [Frame(9, [], rsv: 2)], ProtocolViolation.ReservedBitsSet, CloseStatus.ProtocolError },
        { "RSV3", [Frame(2, [], rsv: 1)], ProtocolViolation.ReservedBitsSet, CloseStatus.ProtocolError },
        { "opcode 3", [Frame(3, [])], ProtocolViolation.ReservedOpcode, CloseStatus.ProtocolError },
        { "opcode 7", [Frame(7, [])], ProtocolViolation.ReservedOpcode, CloseStatus.ProtocolError },
        { "opcode 11", [Frame(11, [])], ProtocolViolation.ReservedOpcode, CloseStatus.ProtocolError },
        { "opcode 15", [Frame(15, [])], ProtocolViolation.ReservedOpcode, CloseStatus.ProtocolError },
        { "ping of 126 bytes", [Frame(9, new byte[126])], ProtocolViolation.ControlFrameTooLong, CloseStatus.ProtocolError },
        { "fragmented ping", [Frame(9, [], fin: false)], ProtocolViolation.ControlFrameFragmented, CloseStatus.ProtocolError },
        { "fragmented close", [Frame(8, [], fin: false)], ProtocolViolation.ControlFrameFragmented, CloseStatus.ProtocolError },
        { "continuation first", [Frame(0, "x"u8.ToArray())], ProtocolViolation.UnexpectedContinuation, CloseStatus.ProtocolError },
        { "continuation after final", [Frame(2, [1]), Frame(0, [2])], ProtocolViolation.UnexpectedContinuation, CloseStatus.ProtocolError },
        { "text inside fragmented", [Frame(1, "a"u8.ToArray(), fin: false), Frame(1, "b"u8.ToArray())], ProtocolViolation.ExpectedContinuation, CloseStatus.ProtocolError },
        { "binary inside fragmented", [Frame(2, [1], fin: false), Frame(9, []), Frame(2, [2])], ProtocolViolation.ExpectedContinuation, CloseStatus.ProtocolError },
        { "unmasked at server", [Frame(2, [1], masked: false)], ProtocolViolation.UnmaskedFrame, CloseStatus.ProtocolError },
        { "close of one byte", [Frame(8, [0x03])], ProtocolViolation.ClosePayloadTooShort, CloseStatus.ProtocolError },
        { "close 999", [Frame(8, Close(999))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 1004", [Frame(8, Close(1004))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 1005", [Frame(8, Close(1005))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 1006", [Frame(8, Close(1006))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 1015", [Frame(8, Close(1015))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 1016", [Frame(8, Close(1016))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 2999", [Frame(8, Close(2999))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 5000", [Frame(8, Close(5000))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close 65535", [Frame(8, Close(65535))], ProtocolViolation.InvalidCloseStatus, CloseStatus.ProtocolError },
        { "close reason not UTF-8", [Frame(8, [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD])], ProtocolViolation.InvalidCloseReasonUtf8, CloseStatus.InvalidPayloadData },
        { "text not UTF-8", [Frame(1, [0x61, 0xFF])], ProtocolViolation.InvalidTextUtf8, CloseStatus.InvalidPayloadData },
        { "text cut at message end", [Frame(1, [0xCE], fin: false), Frame(0, [])], ProtocolViolation.InvalidTextUtf8, CloseStatus.InvalidPayloadData },
        { "surrogate across fragments", [Frame(1, [0xED], fin: false), Frame(0, [0xA0, 0x80])], ProtocolViolation.InvalidTextUtf8, CloseStatus.InvalidPayloadData },
    };

    [Theory]
    [MemberData(nameof(ServerViolations))]
    public void EachRuleFailsWithItsCloseStatus(string rule, byte[][] frames, ProtocolViolation expected, CloseStatus status)
    {
        Assert.NotNull(rule);
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(expected, Run(decoder, frames));
        Assert.Equal(status, decoder.Violation.ToCloseStatus());
    }

    [Fact]
    public void ClientRejectsMaskedFrame()
    {
        var decoder = new FrameDecoder(WebSocketRole.Client);
        Assert.Equal(ProtocolViolation.MaskedFrame, Run(decoder, Frame(2, [1, 2], masked: true)));
        Assert.Equal(CloseStatus.ProtocolError, decoder.Violation.ToCloseStatus());
    }

    [Theory]
    [InlineData((ushort)1000)]
    [InlineData((ushort)1003)]
    [InlineData((ushort)1007)]
    [InlineData((ushort)1011)]
    [InlineData((ushort)1012)]
    [InlineData((ushort)1013)]
    [InlineData((ushort)1014)]
    [InlineData((ushort)3000)]
    [InlineData((ushort)4999)]
    public void ValidCloseCodesAreAccepted(ushort code)
    {
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(ProtocolViolation.None, Run(decoder, Frame(8, Close(code, "bye κόσμε"))));
    }

    [Fact]
    public void EmptyCloseAndControlFramesInsideAFragmentedMessageAreAccepted()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(ProtocolViolation.None, Run(decoder,
            Frame(1, "κό"u8.ToArray()[..3], fin: false), // cut inside 'ό'
            Frame(9, "ping"u8.ToArray()),
            Frame(10, []),
            Frame(0, "κόσμε"u8.ToArray()[3..], fin: false),
            Frame(0, []),
            Frame(8, [])));
        Assert.False(decoder.InFragmentedMessage);
    }

    [Fact]
    public void FrameOverTheLimitIsRefusedFromItsHeader()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxFramePayloadLength = 200 });
        // FIN=1, Binary, MASK=1, 16-bit length 201 — only the first 4 header bytes present.
        var status = decoder.ReadHeader([0x82, 0xFE, 0x00, 0xC9], out _, out _);
        Assert.Equal(OperationStatus.InvalidData, status);
        Assert.Equal(ProtocolViolation.FrameTooBig, decoder.Violation);
        Assert.Equal(CloseStatus.MessageTooBig, decoder.Violation.ToCloseStatus());
    }

    [Fact]
    public void MessageOverTheLimitIsRefusedAtTheFragmentThatExceedsIt()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxMessagePayloadLength = 10 });
        Assert.Equal(ProtocolViolation.MessageTooBig, Run(decoder,
            Frame(2, new byte[4], fin: false), Frame(0, new byte[6], fin: false), Frame(0, new byte[1])));
        Assert.Equal(CloseStatus.MessageTooBig, decoder.Violation.ToCloseStatus());

        var exact = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxMessagePayloadLength = 10 });
        Assert.Equal(ProtocolViolation.None, Run(exact, Frame(2, new byte[4], fin: false), Frame(0, new byte[6])));
    }

    [Fact]
    public void ControlFramesAreNoPartOfAMessageSoTheMessageLimitDoesNotBoundThem()
    {
        // Found by the fuzzer's reference model: with a message limit under 2 bytes every Close with a status failed
        // with 1009 (the message limit bounded every frame). Only the frame limit bounds a control frame.
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxMessagePayloadLength = 1 });
        Assert.Equal(ProtocolViolation.None, Run(decoder, Frame(9, new byte[125]), Frame(8, Close(1000, "bye"))));
        var cut = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxMessagePayloadLength = 1 });
        Assert.Equal(OperationStatus.Done, cut.ReadHeader(Frame(10, new byte[100]).AsSpan(0, 6), out _, out _));
        var data = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxMessagePayloadLength = 1 });
        Assert.Equal(CloseStatus.MessageTooBig, Run(data, Frame(2, new byte[2])).ToCloseStatus()); // data frames still bounded
        var small = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxFramePayloadLength = 1 });
        Assert.Equal(ProtocolViolation.FrameTooBig, Run(small, Frame(8, Close(1000))));
    }

    [Fact]
    public void NegotiatedRsvBitIsAccepted()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { AllowedRsv = 4 });
        Assert.Equal(ProtocolViolation.None, Run(decoder, Frame(2, [1], rsv: 4)));
        Assert.Equal(ProtocolViolation.ReservedBitsSet, Run(decoder, Frame(2, [1], rsv: 2)));
    }

    [Fact]
    public void WithPerMessageDeflateRsv1MarksTheFirstFrameOfADataMessageOnly()
    {
        var options = new FrameDecoderOptions { PerMessageDeflate = true };
        byte[] notUtf8 = [0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]; // "Hello", deflated: not UTF-8 text

        Assert.Equal(ProtocolViolation.None, Run(new FrameDecoder(WebSocketRole.Server, options), Frame(1, notUtf8, rsv: 4)));
        Assert.Equal(ProtocolViolation.None, Run(new FrameDecoder(WebSocketRole.Server, options), Frame(2, notUtf8, rsv: 4)));
        // Fragmented: RSV1 on the first frame; the continuations' compressed bytes are not checked as text either.
        Assert.Equal(ProtocolViolation.None, Run(new FrameDecoder(WebSocketRole.Server, options),
            Frame(1, notUtf8[..3], fin: false, rsv: 4), Frame(0, notUtf8[3..], fin: true)));
        // An uncompressed text message after a compressed one is checked again.
        Assert.Equal(ProtocolViolation.InvalidTextUtf8, Run(new FrameDecoder(WebSocketRole.Server, options),
            Frame(1, notUtf8, rsv: 4), Frame(1, notUtf8, fin: false), Frame(0, [], fin: true)));
        Assert.Equal(ProtocolViolation.InvalidTextUtf8, Run(new FrameDecoder(WebSocketRole.Server, options), Frame(1, notUtf8, rsv: 4), Frame(1, notUtf8)));
    }

    [Theory]
    [InlineData(0, false, 4)] // a continuation
    [InlineData(9, true, 4)] // a Ping
    [InlineData(10, true, 4)] // a Pong
    [InlineData(8, true, 4)] // a Close
    [InlineData(1, true, 2)] // RSV2 is not permessage-deflate's
    [InlineData(2, true, 1)] // nor RSV3
    public void WithPerMessageDeflateRsvBitsElsewhereFailWith1002(int opcode, bool fin, int rsv)
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { PerMessageDeflate = true });
        byte[][] frames = opcode == 0
            ? [Frame(2, [1], fin: false, rsv: 4), Frame(0, [2], fin: fin, rsv: rsv)]
            : [Frame(opcode, opcode == 8 ? Close(1000) : [1], fin: fin, rsv: rsv)];

        Assert.Equal(ProtocolViolation.ReservedBitsSet, Run(decoder, frames));

        // From the first two bytes alone too.
        var early = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { PerMessageDeflate = true });
        if (opcode != 0)
        {
            Assert.Equal(OperationStatus.InvalidData, early.ReadHeader([(byte)(0x80 | (rsv << 4) | opcode), 0x81], out _, out _)); // masked, 1 byte: the mask key still to come
            Assert.Equal(ProtocolViolation.ReservedBitsSet, early.Violation);
        }
    }

    [Fact]
    public void WithoutPerMessageDeflateACompressedFrameFailsWith1002()
    {
        Assert.Equal(ProtocolViolation.ReservedBitsSet, Run(new FrameDecoder(WebSocketRole.Server), Frame(1, [0xF2, 0x00], rsv: 4)));
        Assert.Equal(ProtocolViolation.ReservedBitsSet, Run(new FrameDecoder(WebSocketRole.Client), Frame(2, [0xF2, 0x00], masked: false, rsv: 4)));
    }

    [Fact]
    public void LeadByteViolationsFailBeforeTheHeaderIsComplete()
    {
        // FIN=1, RSV1, Binary, MASK=1, 16-bit length — only 2 of 8 header bytes present.
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(OperationStatus.InvalidData, decoder.ReadHeader([0xC2, 0xFE], out _, out _));
        Assert.Equal(ProtocolViolation.ReservedBitsSet, decoder.Violation);

        var client = new FrameDecoder(WebSocketRole.Client);
        Assert.Equal(OperationStatus.InvalidData, client.ReadHeader([0x80, 0x7E], out _, out _));
        Assert.Equal(ProtocolViolation.UnexpectedContinuation, client.Violation);
    }

    [Fact]
    public void FailedDecoderStaysFailed()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(ProtocolViolation.ReservedOpcode, Run(decoder, Frame(3, [])));
        Assert.Equal(OperationStatus.InvalidData, decoder.ReadFrame(Frame(2, [1]), out _, out _, out _));
        Assert.Equal(OperationStatus.InvalidData, decoder.ReadHeader(Frame(2, [1]), out _, out _));
        Assert.Equal(ProtocolViolation.ReservedOpcode, decoder.Violation);
    }

    [Fact]
    public void PayloadInChunksIsUnmaskedAndValidatedAcrossEverySplit()
    {
        byte[] text = System.Text.Encoding.UTF8.GetBytes("Grüße, κόσμε, 😀 — the quick brown fox");
        byte[] frame = Frame(1, text);
        for (int split = 0; split <= text.Length; split++)
        {
            byte[] copy = (byte[])frame.Clone();
            var decoder = new FrameDecoder(WebSocketRole.Server);
            Assert.Equal(OperationStatus.Done, decoder.ReadHeader(copy, out var header, out _));
            var payload = copy.AsSpan(header.HeaderLength);
            var first = decoder.ProcessPayload(payload[..split]);
            Assert.Equal(split == text.Length ? OperationStatus.Done : OperationStatus.NeedMoreData, first);
            if (split < text.Length)
            {
                Assert.Equal(OperationStatus.Done, decoder.ProcessPayload(payload[split..]));
            }

            Assert.Equal(text, payload.ToArray());
            Assert.False(decoder.InPayload);
        }
    }

    [Fact]
    public void CloseFrameValidatedAcrossEverySplit()
    {
        byte[] frame = Frame(8, Close(4000, "κόσμε"));
        byte[] bad = Frame(8, Close(1005, "κόσμε"));
        byte[] badUtf8 = Frame(8, [0x0F, 0xA0, 0xCE, 0xBA, 0xCE]);
        int payloadLength = frame.Length - 6;
        for (int split = 0; split <= payloadLength; split++)
        {
            Assert.Equal(ProtocolViolation.None, ReadInTwo(frame, split));
            Assert.Equal(ProtocolViolation.InvalidCloseStatus, ReadInTwo(bad, split));
        }

        for (int split = 0; split <= 5; split++)
        {
            Assert.Equal(ProtocolViolation.InvalidCloseReasonUtf8, ReadInTwo(badUtf8, split));
        }

        static ProtocolViolation ReadInTwo(byte[] original, int split)
        {
            byte[] copy = (byte[])original.Clone();
            var decoder = new FrameDecoder(WebSocketRole.Server);
            decoder.ReadHeader(copy, out var header, out _);
            var payload = copy.AsSpan(header.HeaderLength);
            if (decoder.ProcessPayload(payload[..split]) == OperationStatus.InvalidData)
            {
                return decoder.Violation;
            }

            if (split < payload.Length && decoder.ProcessPayload(payload[split..]) == OperationStatus.InvalidData)
            {
                return decoder.Violation;
            }

            return decoder.Violation;
        }
    }

    [Fact]
    public void ReadFrameReportsMissingBytesAndTouchesNothing()
    {
        byte[] frame = Frame(2, [1, 2, 3, 4, 5]);
        var decoder = new FrameDecoder(WebSocketRole.Server);
        for (int available = 0; available < frame.Length; available++)
        {
            byte[] copy = (byte[])frame.Clone();
            var status = decoder.ReadFrame(copy.AsSpan(0, available), out _, out _, out long needed);
            Assert.Equal(OperationStatus.NeedMoreData, status);
            Assert.True(needed >= 1 && available + needed <= frame.Length, $"available {available}, needed {needed}");
            if (available >= 6)
            {
                Assert.Equal(frame.Length - available, needed);
            }

            Assert.Equal(frame, copy); // nothing unmasked yet
            Assert.False(decoder.InPayload);
        }
    }

    [Fact]
    public void SequenceHeaderSplitAcrossSegmentsIsRead()
    {
        byte[] frame = Frame(2, new byte[300]);
        for (int split = 1; split < 8; split++)
        {
            var decoder = new FrameDecoder(WebSocketRole.Server);
            Assert.Equal(OperationStatus.Done, decoder.ReadHeader(Segments.Split(frame, split), out var header, out _));
            Assert.Equal(300, header.PayloadLength);
            Assert.Equal(300, decoder.PayloadRemaining);
        }
    }

    [Fact]
    public void MisuseThrowsInsteadOfCorruptingState()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Throws<InvalidOperationException>(() => decoder.ProcessPayload(new byte[1]));
        byte[] frame = Frame(2, [1, 2]);
        decoder.ReadHeader(frame, out _, out _);
        Assert.Throws<InvalidOperationException>(() => decoder.ProcessPayload(new byte[3]));
        Assert.Throws<InvalidOperationException>(() => decoder.ReadHeader(frame, out _, out _));
    }

    [Fact]
    public void Utf8ValidationCanBeTurnedOff()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { ValidateUtf8 = false });
        Assert.Equal(ProtocolViolation.None, Run(decoder, Frame(1, [0xFF, 0xFE]), Frame(8, [0x03, 0xE8, 0xFF])));

        // Close codes are still judged without UTF-8 validation.
        var codes = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { ValidateUtf8 = false });
        Assert.Equal(ProtocolViolation.InvalidCloseStatus, Run(codes, Frame(8, Close(999))));
    }

    [Theory]
    [InlineData(WebSocketRole.Server, 1, 126)]
    [InlineData(WebSocketRole.Server, 2, 1000)]
    [InlineData(WebSocketRole.Server, 2, 65535)]
    [InlineData(WebSocketRole.Client, 1, 4097)]
    [InlineData(WebSocketRole.Client, 2, 126)]
    public void WholeFramesWithA16BitLengthDecodeAsTheGeneralPathDoes(WebSocketRole role, int opcode, int length)
    {
        byte[] payload = new byte[length];
        for (int i = 0; i < length; i++)
        {
            payload[i] = (byte)('a' + (i % 26));
        }

        bool masked = role == WebSocketRole.Server;
        byte[] wire = Frame(opcode, payload, masked: masked);
        byte[] copy = [.. wire, 0x82]; // one byte of the next frame behind it

        // Whole frame: ReadFrame.
        var whole = new FrameDecoder(role);
        Assert.Equal(OperationStatus.Done, whole.ReadFrame(copy, out FrameHeader header, out Span<byte> unmasked, out _));

        // The same bytes header first, then the payload: the general path.
        var pieces = new FrameDecoder(role);
        Assert.Equal(OperationStatus.Done, pieces.ReadHeader(wire, out FrameHeader expected, out _));
        Span<byte> rest = wire.AsSpan(expected.HeaderLength);
        Assert.Equal(OperationStatus.Done, pieces.ProcessPayload(rest));

        Assert.Equal(expected, header);
        Assert.Equal(masked ? 8 : 4, header.HeaderLength);
        Assert.Equal(wire.Length, header.FrameLength);
        Assert.True(unmasked.SequenceEqual(payload));
        Assert.True(rest.SequenceEqual(payload));

        // The message state is where the general path leaves it: no message open, so a Continuation is refused.
        Assert.False(whole.InFragmentedMessage);
        Assert.Equal(ProtocolViolation.UnexpectedContinuation, Run(whole, Frame(0, [1], masked: masked)));
    }

    public static TheoryData<string, byte[], FrameDecoderOptions, ProtocolViolation> SixteenBitViolations => new()
    {
        // FIN=1, Binary, MASK=1, 16-bit length 125: the 7-bit form was due.
        { "non-minimal 125", [0x82, 0xFE, 0x00, 0x7D, .. new byte[4 + 125]], FrameDecoderOptions.Default, ProtocolViolation.NonMinimalLength },
        { "over the frame limit", Frame(2, new byte[300]), new FrameDecoderOptions { MaxFramePayloadLength = 299 }, ProtocolViolation.FrameTooBig },
        { "over the message limit (a single frame: the frame limit is the smaller)", Frame(2, new byte[300]), new FrameDecoderOptions { MaxMessagePayloadLength = 299 }, ProtocolViolation.FrameTooBig },
        { "unmasked at server", Frame(2, new byte[300], masked: false), FrameDecoderOptions.Default, ProtocolViolation.UnmaskedFrame },
        { "ping of 300 bytes", Frame(9, new byte[300]), FrameDecoderOptions.Default, ProtocolViolation.ControlFrameTooLong },
        { "RSV1", Frame(2, new byte[300], rsv: 4), FrameDecoderOptions.Default, ProtocolViolation.ReservedBitsSet },
        { "invalid UTF-8 at the end", Frame(1, [.. new byte[299], 0xC3]), FrameDecoderOptions.Default, ProtocolViolation.InvalidTextUtf8 },
        { "surrogate in the middle", Frame(1, [.. new byte[150], 0xED, 0xA0, 0x80, .. new byte[150]]), FrameDecoderOptions.Default, ProtocolViolation.InvalidTextUtf8 },
    };

    [Theory]
    [MemberData(nameof(SixteenBitViolations))]
    public void WholeFramesWithA16BitLengthKeepEveryRule(string rule, byte[] wire, FrameDecoderOptions options, ProtocolViolation expected)
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, options);
        Assert.Equal(OperationStatus.InvalidData, decoder.ReadFrame(wire, out _, out _, out _));
        Assert.True(expected == decoder.Violation, $"{rule}: {decoder.Violation}");
    }

    [Fact]
    public void A16BitFrameOfTheExactLimitIsAccepted()
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxFramePayloadLength = 300, MaxMessagePayloadLength = 300 });
        Assert.Equal(ProtocolViolation.None, Run(decoder, Frame(2, new byte[300]), Frame(1, new byte[300])));
    }

    [Fact]
    public void A16BitFrameInsideAFragmentedMessageTakesTheMessageRules()
    {
        // A final Binary frame while a message is open must be refused, whatever its length form.
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(ProtocolViolation.ExpectedContinuation, Run(decoder, Frame(2, new byte[10], fin: false), Frame(2, new byte[300])));

        var ok = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxMessagePayloadLength = 400 });
        Assert.Equal(ProtocolViolation.MessageTooBig, Run(ok, Frame(2, new byte[200], fin: false), Frame(0, new byte[201])));
    }
}

public class DecodeFramesTests
{
    private struct Recorder : IFrameHandler
    {
        public List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Frames;
        public int StopAfter;

        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Frames.Add((opcode, fin, payload.ToArray()));
            return Frames.Count != StopAfter;
        }
    }

    private static byte[] ClientStream(out List<(WebSocketOpcode, bool, byte[])> frames)
    {
        var encoder = new FrameEncoder(WebSocketRole.Client);
        var writer = new ArrayBufferWriter<byte>();
        frames =
        [
            (WebSocketOpcode.Text, true, "hello"u8.ToArray()),
            (WebSocketOpcode.Binary, false, new byte[300]),
            (WebSocketOpcode.Ping, true, [1, 2, 3]),
            (WebSocketOpcode.Continuation, true, new byte[70000]),
            (WebSocketOpcode.Binary, true, [9]),
            (WebSocketOpcode.Close, true, [0x03, 0xE8]),
        ];
        foreach (var (opcode, fin, payload) in frames)
        {
            encoder.Write(writer, opcode, payload, fin);
        }

        return writer.WrittenSpan.ToArray();
    }

    [Fact]
    public void EveryWholeFrameIsHandedOverAndAPartialOneIsLeft()
    {
        byte[] wire = ClientStream(out var expected);
        for (int cut = 0; cut <= wire.Length; cut += 97)
        {
            var decoder = new FrameDecoder(WebSocketRole.Server);
            var recorder = new Recorder { Frames = [] };
            byte[] copy = (byte[])wire.Clone();
            var status = decoder.DecodeFrames(copy.AsSpan(0, cut), ref recorder, out int consumed, out long needed);
            Assert.Equal(OperationStatus.NeedMoreData, status);
            Assert.True(needed >= 1);
            var rest = copy.AsSpan(consumed).ToArray(); // the partial frame, untouched, continues in the next call
            Assert.Equal(wire.AsSpan(consumed).ToArray(), rest);
            status = decoder.DecodeFrames(rest, ref recorder, out int consumedRest, out _);
            Assert.Equal(OperationStatus.NeedMoreData, status);
            Assert.Equal(rest.Length, consumedRest);
            Assert.Equal(expected.Count, recorder.Frames.Count);
            for (int i = 0; i < expected.Count; i++)
            {
                Assert.Equal(expected[i].Item1, recorder.Frames[i].Opcode);
                Assert.Equal(expected[i].Item2, recorder.Frames[i].Fin);
                Assert.Equal(expected[i].Item3, recorder.Frames[i].Payload);
            }
        }
    }

    [Fact]
    public void HandlerCanStopAfterAFrame()
    {
        byte[] wire = ClientStream(out _);
        var decoder = new FrameDecoder(WebSocketRole.Server);
        var recorder = new Recorder { Frames = [], StopAfter = 2 };
        Assert.Equal(OperationStatus.Done, decoder.DecodeFrames(wire, ref recorder, out int consumed, out _));
        Assert.Equal(2, recorder.Frames.Count);
        Assert.Equal(11 + 308, consumed); // "hello" masked (6 + 5) and 300 bytes masked (8 + 300)
    }

    [Fact]
    public void ViolationStopsAfterTheFramesBeforeIt()
    {
        // A valid masked text "ok", then an unmasked binary frame from a client.
        byte[] wire = [0x81, 0x82, 0, 0, 0, 0, (byte)'o', (byte)'k', 0x82, 0x01, 0x00];
        var decoder = new FrameDecoder(WebSocketRole.Server);
        var recorder = new Recorder { Frames = [] };
        Assert.Equal(OperationStatus.InvalidData, decoder.DecodeFrames(wire, ref recorder, out int consumed, out _));
        Assert.Single(recorder.Frames);
        Assert.Equal(8, consumed);
        Assert.Equal(ProtocolViolation.UnmaskedFrame, decoder.Violation);
    }

    [Fact]
    public void SmallInvalidTextFailsOnTheFastPathToo()
    {
        var decoder = new FrameDecoder(WebSocketRole.Client);
        var recorder = new Recorder { Frames = [] };
        byte[] wire = [0x81, 0x02, 0xC0, 0x80]; // FIN=1, Text, MASK=0, overlong NUL
        Assert.Equal(OperationStatus.InvalidData, decoder.DecodeFrames(wire, ref recorder, out _, out _));
        Assert.Equal(CloseStatus.InvalidPayloadData, decoder.Violation.ToCloseStatus());
        Assert.Empty(recorder.Frames);
    }
}
