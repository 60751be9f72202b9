namespace WebSocketCodec.Tests.Framing;

public class SmokeTests
{
    [Fact]
    public void UnmaskedHelloFromRfcSection57DecodesAsClient()
    {
        // RFC 6455 §5.7: a single-frame unmasked text message "Hello": FIN=1, Text(0x1), MASK=0, len=5.
        byte[] frame = [0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f];
        var decoder = new FrameDecoder(WebSocketRole.Client);
        Assert.Equal(System.Buffers.OperationStatus.Done, decoder.ReadFrame(frame, out var header, out var payload, out _));
        Assert.Equal("Hello", System.Text.Encoding.UTF8.GetString(payload));
        Assert.Equal(7, header.FrameLength);
    }
}
