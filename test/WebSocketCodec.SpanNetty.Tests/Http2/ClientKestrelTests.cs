using System.Text;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using static WebSocketCodec.SpanNetty.Tests.Http2.ClientHarness;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>Our SpanNetty HTTP/2 client against our Kestrel endpoint (h2c prior knowledge, and TLS with ALPN h2).</summary>
public sealed class ClientKestrelTests : LeakCheckedTests
{
    private static readonly int[] Sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20];

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task EchoesEverySizeAndClosesCleanly(bool tls)
    {
        var pool = new CountingPool();
        await using WebApplication app = await StartKestrelAsync(tls);
        await using (Http2WebSocketClient client = await ConnectAsync(KestrelUrl(app)))
        {
            ReceivingWebSocket websocket = await OpenAsync(client, "/echo", new WebSocketClientOptions { Session = WebSocketSessionOptions.Default with { Pool = pool } }, pool);
            foreach (int size in Sizes)
            {
                await websocket.EchoAsync(WebSocketOpcode.Binary, Payload(size));
                await websocket.EchoAsync(WebSocketOpcode.Text, Encoding.UTF8.GetBytes(new string('ж', size / 2)));
            }

            WebSocketCloseInfo info = await websocket.CloseAsync();
            Assert.True(info.IsClean, info.ToString());
            await websocket.Opened.Stream.CloseCompletion.WaitAsync(TimeSpan.FromSeconds(20));
            Assert.True(websocket.Adapter.LocalEnded && websocket.Adapter.RemoteEnded, "END_STREAM both ways");
        }

        await Eventually.True(() => pool.Outstanding == 0);
        pool.AssertBalanced();
        await app.StopAsync();
    }

    [Fact]
    public async Task NegotiatesTheSubprotocolAndPermessageDeflateAndSharesTheConnection()
    {
        await using WebApplication app = await StartKestrelAsync(false, accept =>
        {
            accept.Subprotocols = ["chat"];
            accept.Deflate = new PerMessageDeflateOptions();
        });
        await using Http2WebSocketClient client = await ConnectAsync(KestrelUrl(app));
        var options = new WebSocketClientOptions { Subprotocols = ["chat"], Deflate = new PerMessageDeflateOptions() };
        ReceivingWebSocket[] websockets = await Task.WhenAll(Enumerable.Range(0, 20).Select(_ => OpenAsync(client, "/echo", options)));
        byte[] json = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("{\"id\":1,\"name\":\"user\"},", 2000)));
        await Task.WhenAll(websockets.Select(async ws =>
        {
            Assert.Equal("chat", ws.WebSocket.Subprotocol);
            Assert.NotNull(ws.WebSocket.Deflate);
            await ws.EchoAsync(WebSocketOpcode.Text, json);
            await ws.EchoAsync(WebSocketOpcode.Binary, Payload(100_000));
        }));
        WebSocketCloseInfo[] closed = await Task.WhenAll(websockets.Select(ws => ws.CloseAsync()));
        Assert.All(closed, info => Assert.True(info.IsClean, info.ToString()));
        await app.StopAsync();
    }

    [Fact]
    public async Task ARefusalFailsWithKestrelsStatus()
    {
        await using WebApplication app = await StartKestrelAsync(true);
        await using Http2WebSocketClient client = await ConnectAsync(KestrelUrl(app));
        var refused = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => OpenAsync(client, "/nowhere"));
        Assert.Equal(404, refused.StatusCode);
        ReceivingWebSocket websocket = await OpenAsync(client, "/echo");
        await websocket.EchoAsync(WebSocketOpcode.Text, "after a refusal"u8.ToArray());
        Assert.True((await websocket.CloseAsync()).IsClean);
        await app.StopAsync();
    }
}
