using System.Buffers;

namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>Reads the server's unmasked frames as a client would.</summary>
public static class ClientFrames
{
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
}
