using System.Buffers;

namespace WebSocketCodec.Tests;

/// <summary>The wire around a session under test: the frames a client sends it, and the control frames it wants
/// written, decoded as a client would.</summary>
internal static class SessionWire
{
    private static readonly FrameEncoder Client = new(WebSocketRole.Client);

    /// <summary>A frame as a client sends it (masked).</summary>
    public static byte[] Frame(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        var writer = new ArrayBufferWriter<byte>();
        Client.Write(writer, opcode, payload, fin);
        return writer.WrittenSpan.ToArray();
    }

    /// <summary>The frames the session wants written, decoded as a client would; the pending output is cleared.</summary>
    public static List<(WebSocketOpcode Opcode, byte[] Payload)> Written(WebSocketSession session)
    {
        var decoder = new FrameDecoder(WebSocketRole.Client);
        var frames = new List<(WebSocketOpcode, byte[])>();
        Span<byte> rest = session.PendingOutput.ToArray();
        while (!rest.IsEmpty)
        {
            Assert.Equal(OperationStatus.Done, decoder.ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out _));
            frames.Add((header.Opcode, payload.ToArray()));
            rest = rest.Slice((int)header.FrameLength);
        }

        session.ClearPendingOutput();
        return frames;
    }
}
