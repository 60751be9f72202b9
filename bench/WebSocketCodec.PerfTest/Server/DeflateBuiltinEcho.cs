using System.Net.WebSockets;
using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.PerfTest;

/// <summary>The <c>aspnetcore</c> echo with <c>--deflate</c>: ASP.NET Core's WebSockets accepting permessage-deflate
/// (<see cref="WebSocketAcceptContext.DangerousEnableCompression"/>; it answers the client's offer, context takeover as
/// offered, 15-bit server window, zlib's default level), then the same receive/send loop as the plain echo.</summary>
internal static class DeflateBuiltinEcho
{
    public static async Task EchoAsync(HttpContext context)
    {
        if (!context.WebSockets.IsWebSocketRequest)
        {
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            return;
        }

        using WebSocket socket = await context.WebSockets.AcceptWebSocketAsync(new WebSocketAcceptContext { DangerousEnableCompression = true });
        byte[] buffer = new byte[64 * 1024];
        try
        {
            while (true)
            {
                ValueWebSocketReceiveResult result = await socket.ReceiveAsync(buffer.AsMemory(), context.RequestAborted);
                if (result.MessageType == WebSocketMessageType.Close)
                {
                    await socket.CloseOutputAsync(socket.CloseStatus ?? WebSocketCloseStatus.NormalClosure, socket.CloseStatusDescription, context.RequestAborted);
                    return;
                }

                await socket.SendAsync(buffer.AsMemory(0, result.Count), result.MessageType, result.EndOfMessage, context.RequestAborted);
            }
        }
        catch (Exception error) when (error is WebSocketException or OperationCanceledException or IOException)
        {
            // The peer broke the protocol or went away.
        }
    }
}
