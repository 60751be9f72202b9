using System.Buffers;

namespace WebSocketCodec.Tests.Infrastructure;

/// <summary>The control frames a session under test wants written, decoded as a client would.</summary>
internal static class SessionWire
{
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
