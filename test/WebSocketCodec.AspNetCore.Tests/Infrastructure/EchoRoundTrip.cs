using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests;

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
}
