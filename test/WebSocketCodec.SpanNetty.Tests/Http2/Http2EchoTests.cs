using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using static WebSocketCodec.SpanNetty.Tests.Http2.H2Clients;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary><c>ClientWebSocket</c> over HTTP/2 (RFC 8441, h2c) against our SpanNetty HTTP/2 server: echoes, the
/// subprotocol, many websockets on one connection, and the ways a stream ends.</summary>
public sealed class Http2EchoTests : LeakCheckedTests
{
    private static readonly int[] Sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20];

    [Fact]
    public async Task EchoesTextAndBinaryOfEverySizeThenClosesCleanly()
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        using HttpMessageInvoker invoker = Invoker();
        using ClientWebSocket client = await ConnectAsync(invoker, server.Url());
        foreach (int size in Sizes)
        {
            byte[] payload = Payload(size);
            await client.SendAsync(payload, WebSocketMessageType.Binary, true, Timeout());
            (WebSocketMessageType, byte[]) got;
            try
            {
                got = await ReceiveAsync(client);
            }
            catch (Exception e)
            {
                await Task.Delay(500);
                throw new InvalidOperationException($"size {size}: server {string.Join(";", server.Ended)}", e);
            }

            var (type, echoed) = got;
            Assert.Equal(WebSocketMessageType.Binary, type);
            Assert.Equal(payload, echoed);
            string text = new('é', size / 2);
            await client.SendAsync(Encoding.UTF8.GetBytes(text), WebSocketMessageType.Text, true, Timeout());
            (type, echoed) = await ReceiveAsync(client);
            Assert.Equal(WebSocketMessageType.Text, type);
            Assert.Equal(text, Encoding.UTF8.GetString(echoed));
        }

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
        WebSocketCloseInfo info = await Eventually(server);
        Assert.Equal(CloseStatus.NormalClosure, info.Status);
        Assert.True(info.IsClean, info.ToString());
    }

    internal static async Task<WebSocketCloseInfo> Eventually(Http2Server server, int count = 1)
    {
        for (int i = 0; i < 200 && server.Ended.Count < count; i++)
        {
            await Task.Delay(50);
        }

        Assert.True(server.Ended.Count >= count, $"{server.Ended.Count} of {count} websockets ended on the server");
        return server.Ended.First();
    }
}
