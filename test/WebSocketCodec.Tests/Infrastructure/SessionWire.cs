namespace WebSocketCodec.Tests.Infrastructure;

/// <summary>The control frames a session under test wants written, decoded as a client would.</summary>
internal static class SessionWire
{
    /// <summary>The frames the session wants written, decoded as a client would; the pending output is cleared.</summary>
    public static List<(WebSocketOpcode Opcode, byte[] Payload)> Written(WebSocketSession session)
    {
        var frames = WireFrames.Read(session.PendingOutput, WebSocketRole.Client).Select(frame => (frame.Opcode, frame.Payload)).ToList();
        session.ClearPendingOutput();
        return frames;
    }
}
