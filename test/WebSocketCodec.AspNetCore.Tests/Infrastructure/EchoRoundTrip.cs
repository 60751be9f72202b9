using System.Text;
using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>Sends a binary and a text message of each length through an echo and checks what comes back.</summary>
public static class EchoRoundTrip
{
    public static readonly int[] Lengths = [0, 1, 125, 126, 127, 65_535, 65_536, 70_000];

    public static async Task RunAsync(MessageWebSocket socket)
    {
        foreach (int length in Lengths)
        {
            byte[] binary = new byte[length];
            new Random(length).NextBytes(binary);
            string text = string.Concat(Enumerable.Repeat("κόσμε Grüße ", length / 12 + 1))[..(length / 2)];
            await socket.SendAsync(binary, WebSocketMessageType.Binary);
            await socket.SendTextAsync(text);
            using (WebSocketMessage? echo = await socket.ReceiveAsync(RawHttp.Timeout()))
            {
                Assert.Equal(WebSocketMessageType.Binary, echo!.Type);
                Assert.Equal(binary, echo.Payload.ToArray());
            }

            using (WebSocketMessage? echo = await socket.ReceiveAsync(RawHttp.Timeout()))
            {
                Assert.Equal(WebSocketMessageType.Text, echo!.Type);
                Assert.Equal(text, echo.GetText());
            }
        }
    }

    /// <summary>The same code for any <see cref="WebSocket"/>: send each length as binary and text, read it back.</summary>
    public static async Task RunAsync(WebSocket client)
    {
        foreach (int length in Lengths)
        {
            foreach (var type in new[] { WebSocketMessageType.Binary, WebSocketMessageType.Text })
            {
                byte[] message = type == WebSocketMessageType.Text
                    ? Encoding.UTF8.GetBytes(new string('é', length / 2))
                    : RandomBytes(length);
                (WebSocketMessageType echoType, byte[] echo) = await EchoAsync(client, message, type);
                Assert.Equal(type, echoType);
                Assert.Equal(message, echo);
            }
        }
    }

    /// <summary>Sends one message and reads the next whole message back (in 8 KiB reads).</summary>
    public static async Task<(WebSocketMessageType Type, byte[] Payload)> EchoAsync(WebSocket client, byte[] message, WebSocketMessageType type = WebSocketMessageType.Binary)
    {
        await client.SendAsync(message, type, true, RawHttp.Timeout());
        var data = new MemoryStream();
        byte[] buffer = new byte[8 * 1024];
        WebSocketReceiveResult result;
        do
        {
            result = await client.ReceiveAsync(buffer, RawHttp.Timeout());
            data.Write(buffer, 0, result.Count);
        }
        while (!result.EndOfMessage);
        return (result.MessageType, data.ToArray());
    }

    private static byte[] RandomBytes(int length)
    {
        byte[] bytes = new byte[length];
        new Random(length).NextBytes(bytes);
        return bytes;
    }
}
