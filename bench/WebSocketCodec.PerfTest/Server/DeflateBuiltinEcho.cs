using System.Net.WebSockets;
using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.PerfTest;

/// <summary>The <c>aspnetcore</c> echo with <c>--deflate</c>: ASP.NET Core's WebSockets accepting permessage-deflate
/// (<see cref="WebSocketAcceptContext.DangerousEnableCompression"/>; it answers the client's offer, context takeover as
/// offered, 15-bit server window, zlib's default level), then the same receive/send loop as the plain echo, into a
/// receive buffer per websocket of 64 KiB (one receive per message up to 64 KiB) or, for the memory table, of the size the
/// load asks for (an application's buffer, which the heap per websocket then counts).</summary>
internal static class DeflateBuiltinEcho
{
    /// <summary>The receive buffer of each websocket unless the load says otherwise.</summary>
    public const int DefaultBuffer = 64 * 1024;

    /// <summary>The echo with a receive buffer of <paramref name="bufferSize"/> bytes per websocket.</summary>
    public static RequestDelegate Echo(int bufferSize) => context => EchoAsync(context, bufferSize);

    public static Task EchoAsync(HttpContext context) => EchoAsync(context, DefaultBuffer);

    private static async Task EchoAsync(HttpContext context, int bufferSize)
    {
        if (!context.WebSockets.IsWebSocketRequest)
        {
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            return;
        }

        using WebSocket socket = await context.WebSockets.AcceptWebSocketAsync(new WebSocketAcceptContext { DangerousEnableCompression = true });
        byte[] buffer = new byte[bufferSize];
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
