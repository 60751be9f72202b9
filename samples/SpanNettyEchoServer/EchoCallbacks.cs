using System.Net.WebSockets;
using WebSocketCodec.SpanNetty;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>Our echoes: every message back (the message API), or every frame back as it arrives (the callbacks API);
/// either way the read cycle's echoes leave in one flush.</summary>
public static class EchoCallbacks
{
    /// <summary>The message echo.</summary>
    public static IWebSocketCallbacks Messages(ChannelFrameSender sender) => new WebSocketMessageCallbacks(sender, EchoMessage);

    /// <summary>The frame echo.</summary>
    public static IWebSocketCallbacks Frames(ChannelFrameSender sender) => new FrameEcho(sender);

    private static void EchoMessage(ChannelFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload)
    {
        if (sender.CanSend)
        {
            sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);
        }
    }

    private sealed class FrameEcho(ChannelFrameSender sender) : IWebSocketCallbacks
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            if (sender.CanSend)
            {
                sender.Send(opcode, payload, fin);
            }
        }
    }
}
