using System.Buffers;

namespace WebSocketCodec.Pipelines.Tests;

/// <summary>Builds masked client frames and reads the server's unmasked frames.</summary>
public static class ClientFrames
{
    private static readonly FrameEncoder Encoder = new(WebSocketRole.Client);

    public static byte[] Frame(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        var writer = new ArrayBufferWriter<byte>();
        Encoder.Write(writer, opcode, payload, fin);
        return writer.WrittenSpan.ToArray();
    }

    public static byte[] Close(ushort status, string reason = "")
    {
        byte[] payload = new byte[2 + System.Text.Encoding.UTF8.GetByteCount(reason)];
        int length = ClosePayload.Write(payload, (CloseStatus)status, reason);
        return Frame(WebSocketOpcode.Close, payload.AsSpan(0, length));
    }

    /// <summary>Decodes every frame a server sent.</summary>
    public static List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Decode(byte[] wire)
    {
        var decoder = new FrameDecoder(WebSocketRole.Client, new FrameDecoderOptions { ValidateUtf8 = false });
        var frames = new List<(WebSocketOpcode, bool, byte[])>();
        Span<byte> rest = wire;
        while (!rest.IsEmpty)
        {
            OperationStatus status = decoder.ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out _);
            Assert.Equal(OperationStatus.Done, status);
            frames.Add((header.Opcode, header.Fin, payload.ToArray()));
            rest = rest.Slice((int)header.FrameLength);
        }

        return frames;
    }

    public static ushort Status(byte[] closePayload) => (ushort)((closePayload[0] << 8) | closePayload[1]);
}
