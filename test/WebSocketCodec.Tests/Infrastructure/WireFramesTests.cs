namespace WebSocketCodec.Tests.Infrastructure;

/// <summary>The shared frame builder writes the RFC's own examples (RFC 6455 §5.7) byte for byte, so the tests built on
/// it feed what they say they feed.</summary>
public class WireFramesTests
{
    [Fact]
    public void AnUnmaskedHelloIsTheRfcsBytes() =>
        // FIN=1, Text(0x1), MASK=0, len=5, "Hello"
        Assert.Equal([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f], WireFrames.Server(WebSocketOpcode.Text, "Hello"u8));

    [Fact]
    public void AMaskedHelloIsTheRfcsBytes() =>
        // FIN=1, Text(0x1), MASK=1, len=5, key 37 fa 21 3d, "Hello" masked
        Assert.Equal(
            [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58],
            WireFrames.Frame(WebSocketOpcode.Text, "Hello"u8, maskKey: 0x3D21FA37));

    [Fact]
    public void LengthsTakeTheRfcsShortestForms()
    {
        // 256 bytes: 126, then 16 bits; 65536 bytes: 127, then 64 bits.
        Assert.Equal([0x82, 0x7E, 0x01, 0x00], WireFrames.Server(WebSocketOpcode.Binary, new byte[256])[..4]);
        Assert.Equal([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0], WireFrames.Server(WebSocketOpcode.Binary, new byte[65536])[..10]);
    }

    [Fact]
    public void ALyingLengthIsWrittenAsGivenWithThePayloadThatIsThere()
    {
        // FIN=1, Binary, MASK=1, 127: 2^24 announced, key 11 22 33 44, one byte (0 ^ 0x11) follows.
        byte[] frame = WireFrames.Frame(WebSocketOpcode.Binary, [0], maskKey: 0x44332211, announcedLength: 1 << 24);
        Assert.Equal([0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x11, 0x22, 0x33, 0x44, 0x11], frame);
    }

    [Fact]
    public void TheFirstByteCarriesFinRsvAndAnyOpcode()
    {
        Assert.Equal(0x4B, WireFrames.Frame((WebSocketOpcode)0xB, [], fin: false, rsv: 4)[0]);
        Assert.Equal(0xC2, WireFrames.Client(0xC2, [1])[0]);
        Assert.Equal(0x81, WireFrames.Client(0xC2, [1])[1]); // masked, one byte
    }

    [Fact]
    public void AClientFrameDecodesAtAServer()
    {
        byte[] frame = WireFrames.ClientClose(4000, "bye");
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(System.Buffers.OperationStatus.Done, decoder.ReadFrame(frame, out FrameHeader header, out Span<byte> payload, out _));
        Assert.Equal(WebSocketOpcode.Close, header.Opcode);
        Assert.Equal(4000, WireFrames.CloseStatusOf(payload));
        Assert.Equal("bye"u8.ToArray(), payload[2..].ToArray());
    }
}
