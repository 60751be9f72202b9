using System.Net.WebSockets;

namespace WebSocketCodec.Lean.Tests;

/// <summary>Lean servers for the tests: an echo of whole messages (text stays text) at <c>/echo</c>.</summary>
internal static class LeanServers
{
    public static LeanWebSocketServer StartEcho(
        WebSocketAcceptOptions? accept = null, Action<LeanWebSocketServerOptions>? configure = null, int loops = 2)
    {
        var options = new LeanWebSocketServerOptions { Accept = accept ?? new WebSocketAcceptOptions(), LoopCount = loops, Path = "/echo" };
        configure?.Invoke(options);
        return LeanWebSocketServer.Start(options, (_, sender) => Echo(sender));
    }

    public static IWebSocketFrameListener Echo(WebSocketFrameSender sender) =>
        new WebSocketMessageListener<WebSocketFrameSender>(
            sender,
            static (sender, type, payload) => sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload));

    public static async Task<ClientWebSocket> ConnectAsync(Uri uri)
    {
        var client = new ClientWebSocket();
        await client.ConnectAsync(uri, RawHttp.Timeout());
        return client;
    }

    /// <summary>Sends <paramref name="payload"/> and reads its echo whole.</summary>
    public static async Task<byte[]> EchoAsync(ClientWebSocket client, byte[] payload, WebSocketMessageType type = WebSocketMessageType.Binary)
    {
        await client.SendAsync(payload, type, endOfMessage: true, RawHttp.Timeout());
        var received = new MemoryStream();
        byte[] buffer = new byte[64 * 1024];
        ValueWebSocketReceiveResult result;
        do
        {
            result = await client.ReceiveAsync(buffer.AsMemory(), RawHttp.Timeout());
            received.Write(buffer, 0, result.Count);
        }
        while (!result.EndOfMessage);

        Assert.Equal(type, result.MessageType);
        return received.ToArray();
    }
}
