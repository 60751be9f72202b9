using WebSocketCodec.Pipelines;

namespace WebSocketCodec.PerfTest;

/// <summary>The callbacks API echo: every data frame is sent back as it arrives, header written in front of the payload
/// (the frame factory's copying tier); the loop flushes once per read.</summary>
internal sealed class FrameEchoListener(WebSocketFrameSender sender) : IWebSocketFrameListener
{
    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        if (sender.CanSend)
        {
            sender.Send(opcode, payload, fin);
        }
    }
}
