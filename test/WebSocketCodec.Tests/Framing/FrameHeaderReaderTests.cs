using System.Buffers;

namespace WebSocketCodec.Tests.Framing;

public class FrameHeaderReaderTests
{
    public static TheoryData<byte[], bool, WebSocketOpcode, bool, long, int> RfcExamples => new()
    {
        // RFC 6455 §5.7 — FIN=1, Text(0x1), MASK=0, len=5: "Hello"
        { [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], true, WebSocketOpcode.Text, false, 5, 2 },
        // FIN=1, Text, MASK=1 key 37 fa 21 3d, len=5: "Hello" masked
        { [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], true, WebSocketOpcode.Text, true, 5, 6 },
        // FIN=0, Text, len=3: "Hel" — first fragment
        { [0x01, 0x03, 0x48, 0x65, 0x6c], false, WebSocketOpcode.Text, false, 3, 2 },
        // FIN=1, Continuation(0x0), len=2: "lo"
        { [0x80, 0x02, 0x6c, 0x6f], true, WebSocketOpcode.Continuation, false, 2, 2 },
        // FIN=1, Ping(0x9), MASK=0, len=5: "Hello"
        { [0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], true, WebSocketOpcode.Ping, false, 5, 2 },
        // FIN=1, Pong(0xA), MASK=1, len=5
        { [0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58], true, WebSocketOpcode.Pong, true, 5, 6 },
        // FIN=1, Binary(0x2), len=126 → 16-bit 256
        { [0x82, 0x7E, 0x01, 0x00], true, WebSocketOpcode.Binary, false, 256, 4 },
        // FIN=1, Binary, len=127 → 64-bit 65536
        { [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00], true, WebSocketOpcode.Binary, false, 65536, 10 },
    };

    [Theory]
    [MemberData(nameof(RfcExamples))]
    public void RfcSection57ExamplesParse(byte[] frame, bool fin, WebSocketOpcode opcode, bool masked, long length, int headerLength)
    {
        var status = FrameHeaderReader.Read(frame, long.MaxValue, out var header, out _, out var violation);

        Assert.Equal(OperationStatus.Done, status);
        Assert.Equal(ProtocolViolation.None, violation);
        Assert.Equal(fin, header.Fin);
        Assert.Equal(opcode, header.Opcode);
        Assert.Equal(masked, header.IsMasked);
        Assert.Equal(length, header.PayloadLength);
        Assert.Equal(headerLength, header.HeaderLength);
        Assert.Equal(0, header.Rsv);
    }

    [Fact]
    public void MaskedHelloUnmasksToHello()
    {
        byte[] frame = [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58];
        FrameHeaderReader.Read(frame, long.MaxValue, out var header, out _, out _);
        WebSocketMask.Apply(frame.AsSpan(header.HeaderLength), header.MaskKey);
        Assert.Equal("Hello"u8.ToArray(), frame[header.HeaderLength..]);
        Assert.Equal(BitConverter.ToInt32([0x37, 0xfa, 0x21, 0x3d]), header.MaskKey);
    }

    public static TheoryData<long, bool> Boundaries()
    {
        var data = new TheoryData<long, bool>();
        foreach (long length in new long[] { 0, 1, 125, 126, 127, 65535, 65536, uint.MaxValue, (long)uint.MaxValue + 1, long.MaxValue })
        {
            data.Add(length, false);
            data.Add(length, true);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Boundaries))]
    public void EveryLengthBoundaryRoundTripsInMinimalForm(long length, bool masked)
    {
        var header = new FrameHeader(true, 0, WebSocketOpcode.Binary, masked, masked ? 0x1234_5678 : 0, length);
        var bytes = new byte[14];
        int written = FrameHeaderWriter.Write(bytes, header);

        int expectedLength = (length <= 125 ? 2 : length <= 65535 ? 4 : 10) + (masked ? 4 : 0);
        Assert.Equal(expectedLength, written);
        Assert.Equal(expectedLength, FrameHeaderWriter.GetHeaderLength(length, masked));
        int length7 = bytes[1] & 0x7F;
        Assert.Equal(length <= 125 ? (int)length : length <= 65535 ? 126 : 127, length7);

        var status = FrameHeaderReader.Read(bytes.AsSpan(0, written), long.MaxValue, out var read, out _, out _);
        Assert.Equal(OperationStatus.Done, status);
        Assert.Equal(header, read);
    }

    /// <summary>Every header shape: 7/16/64-bit length, masked or not: 2, 4, 10, 6, 8 and 14 bytes.</summary>
    public static TheoryData<string, byte[]> HeaderShapes => new()
    {
        { "2 bytes", [0x82, 0x05] },
        { "6 bytes", [0x82, 0x85, 1, 2, 3, 4] },
        { "4 bytes", [0x82, 0x7E, 0x01, 0x00] },
        { "8 bytes", [0x82, 0xFE, 0x01, 0x00, 1, 2, 3, 4] },
        { "10 bytes", [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] },
        { "14 bytes", [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4] },
    };

    [Theory]
    [MemberData(nameof(HeaderShapes))]
    public void EveryTruncatedPrefixNeedsExactlyTheMissingBytes(string shape, byte[] header)
    {
        Assert.NotNull(shape);
        for (int available = 0; available < header.Length; available++)
        {
            var status = FrameHeaderReader.Read(header.AsSpan(0, available), long.MaxValue, out _, out int needed, out _);
            Assert.Equal(OperationStatus.NeedMoreData, status);
            // Under 2 bytes only the fixed part is known; after it, the whole header length is.
            int expected = available < 2 ? 2 - available : header.Length - available;
            Assert.Equal(expected, needed);
        }

        Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(header, long.MaxValue, out var full, out _, out _));
        Assert.Equal(header.Length, full.HeaderLength);
    }

    [Theory]
    [MemberData(nameof(HeaderShapes))]
    public void EverySplitPointOfASequenceReadsTheSameHeader(string shape, byte[] header)
    {
        Assert.NotNull(shape);
        FrameHeaderReader.Read(header, long.MaxValue, out var expected, out _, out _);
        byte[] withPayload = [.. header, 0xAA, 0xBB];
        for (int split = 1; split < withPayload.Length; split++)
        {
            var sequence = Segments.Split(withPayload, split);
            Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(sequence, long.MaxValue, out var read, out _, out _));
            Assert.Equal(expected, read);
        }

        for (int a = 1; a < header.Length; a++)
        {
            for (int b = a + 1; b < header.Length; b++)
            {
                var sequence = Segments.Split(header, a, b);
                Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(sequence, long.MaxValue, out var read, out _, out _));
                Assert.Equal(expected, read);
            }
        }
    }

    [Fact]
    public void HeaderInOneByteSegmentsReads()
    {
        byte[] header = [0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0, 1, 2, 3, 4];
        var sequence = Segments.Create([.. header.Select(b => new[] { b })]);
        Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(sequence, long.MaxValue, out var read, out _, out _));
        Assert.Equal(65536, read.PayloadLength);
        Assert.Equal(BitConverter.ToInt32([1, 2, 3, 4]), read.MaskKey);
    }

    [Theory]
    [InlineData(new byte[] { 0x82, 0x7E, 0x00, 0x00 }, ProtocolViolation.NonMinimalLength)] // 0 in the 16-bit form
    [InlineData(new byte[] { 0x82, 0x7E, 0x00, 0x7D }, ProtocolViolation.NonMinimalLength)] // 125 in the 16-bit form
    [InlineData(new byte[] { 0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0x7D }, ProtocolViolation.NonMinimalLength)] // 125, 64-bit form
    [InlineData(new byte[] { 0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF }, ProtocolViolation.NonMinimalLength)] // 65535, 64-bit form
    [InlineData(new byte[] { 0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0 }, ProtocolViolation.PayloadLengthOverflow)] // top bit set
    [InlineData(new byte[] { 0x82, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF }, ProtocolViolation.PayloadLengthOverflow)]
    [InlineData(new byte[] { 0x83, 0x00 }, ProtocolViolation.ReservedOpcode)]
    [InlineData(new byte[] { 0x87, 0x00 }, ProtocolViolation.ReservedOpcode)]
    [InlineData(new byte[] { 0x8B, 0x00 }, ProtocolViolation.ReservedOpcode)]
    [InlineData(new byte[] { 0x8F, 0x00 }, ProtocolViolation.ReservedOpcode)]
    [InlineData(new byte[] { 0x09, 0x00 }, ProtocolViolation.ControlFrameFragmented)] // Ping without FIN
    [InlineData(new byte[] { 0x88, 0x7E }, ProtocolViolation.ControlFrameTooLong)] // Close announcing 16-bit length: at byte 2
    [InlineData(new byte[] { 0x89, 0x7F }, ProtocolViolation.ControlFrameTooLong)]
    public void HeaderRulesFailWithTheirViolation(byte[] header, ProtocolViolation expected)
    {
        var status = FrameHeaderReader.Read(header, long.MaxValue, out _, out _, out var violation);
        Assert.Equal(OperationStatus.InvalidData, status);
        Assert.Equal(expected, violation);
        Assert.Equal(CloseStatus.ProtocolError, violation.ToCloseStatus());
    }

    [Fact]
    public void OverLimitLengthIsRefusedAtByteTenBeforeTheMaskKey()
    {
        // FIN=1, Binary, MASK=1, 64-bit length 2^40, and no mask key yet: refused from the length alone.
        byte[] header = [0x82, 0xFF, 0, 0, 0x01, 0, 0, 0, 0, 0];
        var status = FrameHeaderReader.Read(header, 1 << 20, out _, out _, out var violation);
        Assert.Equal(OperationStatus.InvalidData, status);
        Assert.Equal(ProtocolViolation.FrameTooBig, violation);
        Assert.Equal(CloseStatus.MessageTooBig, violation.ToCloseStatus());
    }

    [Fact]
    public void LengthAtTheLimitIsAcceptedAndOneMoreIsNot()
    {
        byte[] atLimit = [0x82, 0x7E, 0x01, 0x00];
        Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(atLimit, 256, out _, out _, out _));
        Assert.Equal(OperationStatus.InvalidData, FrameHeaderReader.Read(atLimit, 255, out _, out _, out var violation));
        Assert.Equal(ProtocolViolation.FrameTooBig, violation);
    }

    [Fact]
    public void RsvBitsAreReportedNotJudged()
    {
        // FIN=1, RSV1=1, RSV3=1, Text: the stateless reader passes RSV through; the decoder judges it.
        byte[] header = [0xD1, 0x00];
        Assert.Equal(OperationStatus.Done, FrameHeaderReader.Read(header, 0, out var read, out _, out _));
        Assert.Equal(5, read.Rsv);
    }

    [Fact]
    public void HeaderConstructorRejectsOutOfRangeFields()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameHeader(true, 8, WebSocketOpcode.Text, false, 0, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameHeader(true, 0, (WebSocketOpcode)16, false, 0, 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameHeader(true, 0, WebSocketOpcode.Text, false, 0, -1));
    }

    [Fact]
    public void WriterRefusesTooSmallDestination()
    {
        Assert.Throws<ArgumentException>(() =>
            FrameHeaderWriter.Write(new byte[3], true, 0, WebSocketOpcode.Binary, 200, false, 0));
    }
}
