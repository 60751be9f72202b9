using Microsoft.AspNetCore.Http;

namespace WebSocketCodec.PerfTest;

/// <summary>The <c>aspnetcore</c> echo with <c>--deflate</c>: ASP.NET Core's WebSockets accepting permessage-deflate
/// (<see cref="WebSocketAcceptContext.DangerousEnableCompression"/>; it answers the client's offer, context takeover as
/// offered, 15-bit server window, zlib's default level), then the plain echo's receive/send loop (the demo server's <c>BuiltinEcho</c>), into a
/// receive buffer per websocket of 64 KiB (one receive per message up to 64 KiB) or, for the memory table, of the size the
/// load asks for (an application's buffer, which the heap per websocket then counts).</summary>
internal static class DeflateBuiltinEcho
{
    /// <summary>The receive buffer of each websocket unless the load says otherwise.</summary>
    public const int DefaultBuffer = 64 * 1024;

    /// <summary>The echo with a receive buffer of <paramref name="bufferSize"/> bytes per websocket.</summary>
    public static RequestDelegate Echo(int bufferSize) => context => EchoAsync(context, bufferSize);

    public static Task EchoAsync(HttpContext context) => EchoAsync(context, DefaultBuffer);

    private static Task EchoAsync(HttpContext context, int bufferSize) =>
        WebSocketCodec.Samples.EchoServer.BuiltinEcho.EchoAsync(context, new WebSocketAcceptContext { DangerousEnableCompression = true }, bufferSize);
}
