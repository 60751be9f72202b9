using Microsoft.AspNetCore.Http;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Routing;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary><c>/echo</c> with WebSocketCodec: every message, whole and validated, sent back from the read loop (one
/// flush per read). Fragments are joined in buffers of the session's pool.</summary>
internal static class OurEcho
{
    public static void Map(IEndpointRouteBuilder endpoints, string path, Action<WebSocketAcceptOptions> configure) =>
        endpoints.MapWebSocket(
            path,
            (HttpContext _, WebSocketFrameSender sender) => Listener(sender),
            configure);

    /// <summary>The echo of one websocket (on any host).</summary>
    public static IWebSocketFrameListener Listener(WebSocketFrameSender sender) =>
        new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo, sender.Driver.Options.Pool);

    // After our Close (a shutdown's 1001, an idle timeout) Send drops the frame and returns false: no guard needed.
    private static void Echo(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);
}
