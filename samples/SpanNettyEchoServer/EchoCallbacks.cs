using System.Net.WebSockets;
using WebSocketCodec.SpanNetty;

namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>Our echoes: every message back (the message API), or every frame back as it arrives (the callbacks API);
/// either way the read cycle's echoes leave in one flush.</summary>
public static class EchoCallbacks
{
    /// <summary>The message echo; <paramref name="ended"/> is told how the websocket ended.</summary>
    public static IWebSocketFrameListener Messages(WebSocketFrameSender sender, Action<WebSocketCloseInfo>? ended = null) =>
        new WebSocketMessageListener<WebSocketFrameSender>(sender, EchoMessage, onClose: ended);

    /// <summary>The frame echo; <paramref name="ended"/> is told how the websocket ended.</summary>
    public static IWebSocketFrameListener Frames(WebSocketFrameSender sender, Action<WebSocketCloseInfo>? ended = null) => new FrameEcho(sender, ended);

    // After our Close, Send drops the frame and returns false: no guard needed.
    private static void EchoMessage(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);

    private sealed class FrameEcho(WebSocketFrameSender sender, Action<WebSocketCloseInfo>? ended) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => sender.Send(opcode, payload, fin);

        public void OnClose(WebSocketCloseInfo info) => ended?.Invoke(info);
    }
}
