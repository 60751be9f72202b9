using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary><c>/echo</c> with ASP.NET Core's own WebSockets (<c>ManagedWebSocket</c>), for comparisons.</summary>
public static class BuiltinEcho
{
    /// <summary>Serves the echo at <paramref name="path"/>.</summary>
    public static void Map(WebApplication app, string path, TimeSpan keepAlive = default, bool deflate = false)
    {
        app.UseWebSockets(new WebSocketOptions { KeepAliveInterval = keepAlive, KeepAliveTimeout = keepAlive == TimeSpan.Zero ? Timeout.InfiniteTimeSpan : keepAlive });
        app.Map(path, deflate ? context => EchoAsync(context, new WebSocketAcceptContext { DangerousEnableCompression = true }) : EchoAsync);
    }

    /// <summary>Echoes every message of one websocket request (400 for anything else) with ASP.NET Core's WebSockets;
    /// needs <c>UseWebSockets</c>.</summary>
    public static Task EchoAsync(HttpContext context) => EchoAsync(context, null);

    /// <summary>As <see cref="EchoAsync(HttpContext)"/>, accepted with <paramref name="accept"/> (e.g. compression),
    /// receiving into <paramref name="bufferSize"/> bytes (one receive per message up to that length).</summary>
    public static async Task EchoAsync(HttpContext context, WebSocketAcceptContext? accept, int bufferSize = 64 * 1024)
    {
        if (!context.WebSockets.IsWebSocketRequest)
        {
            context.Response.StatusCode = StatusCodes.Status400BadRequest;
            return;
        }

        using WebSocket socket = await context.WebSockets.AcceptWebSocketAsync(accept ?? new WebSocketAcceptContext());
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
