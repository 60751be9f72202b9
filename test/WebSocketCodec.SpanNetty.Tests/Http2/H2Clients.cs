using System.Net;
using System.Net.WebSockets;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary><c>ClientWebSocket</c> over HTTP/2 (h2c prior knowledge) through one shared <c>SocketsHttpHandler</c>, so
/// every websocket of a test rides one connection.</summary>
internal static class H2Clients
{
    public static HttpMessageInvoker Invoker() => new(new SocketsHttpHandler
    {
        EnableMultipleHttp2Connections = false,
        PooledConnectionIdleTimeout = TimeSpan.FromMinutes(2),
    });

    public static async Task<ClientWebSocket> ConnectAsync(HttpMessageInvoker invoker, Uri url, Action<ClientWebSocketOptions>? configure = null)
    {
        var client = new ClientWebSocket();
        client.Options.HttpVersion = HttpVersion.Version20;
        client.Options.HttpVersionPolicy = HttpVersionPolicy.RequestVersionExact;
        configure?.Invoke(client.Options);
        try
        {
            await client.ConnectAsync(url, invoker, Timeout());
        }
        catch
        {
            client.Dispose();
            throw;
        }

        return client;
    }

    public static CancellationToken Timeout(int seconds = 20) => new CancellationTokenSource(TimeSpan.FromSeconds(seconds)).Token;

    public static async Task<(WebSocketMessageType Type, byte[] Payload)> ReceiveAsync(WebSocket client)
    {
        var buffer = new byte[64 * 1024];
        using var message = new MemoryStream();
        while (true)
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(buffer, Timeout());
            message.Write(buffer, 0, result.Count);
            if (result.EndOfMessage)
            {
                return (result.MessageType, message.ToArray());
            }
        }
    }

    public static byte[] Payload(int size)
    {
        var payload = new byte[size];
        new Random(size).NextBytes(payload);
        return payload;
    }
}
