using System.Net;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>permessage-deflate on the Kestrel endpoint against .NET's <see cref="ClientWebSocket"/> with
/// <c>DangerousDeflateOptions</c>: the offer is accepted, the client's compressed messages (whole, fragmented, empty,
/// with and without context takeover) reach the application inflated, and the uncompressed echoes reach the client.</summary>
public sealed class DeflateEndpointTests
{
    private static Task<KestrelHost> StartEchoAsync(PerMessageDeflateOptions? deflate, bool http2 = false) =>
        KestrelHost.StartAsync(
            map: app => app.MapWebSocket(
                "/echo",
                (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
                    s.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload)),
                options => options.Deflate = deflate),
            sharedPort: http2);

    [Theory]
    [InlineData(true, true, false)]
    [InlineData(false, false, false)] // client_no_context_takeover and server_no_context_takeover
    [InlineData(true, true, true)] // over HTTP/2 (sec-websocket-extensions on the extended CONNECT)
    public async Task ClientWebSocketsCompressedMessagesArriveInflated(bool clientContext, bool serverContext, bool http2)
    {
        await using KestrelHost host = await StartEchoAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, http2);
        using var client = new ClientWebSocket();
        client.Options.CollectHttpResponseDetails = true;
        client.Options.DangerousDeflateOptions = new WebSocketDeflateOptions { ClientContextTakeover = clientContext, ServerContextTakeover = serverContext };
        using var invoker = http2 ? new HttpMessageInvoker(new SocketsHttpHandler()) : null;
        if (http2)
        {
            client.Options.HttpVersion = HttpVersion.Version20;
            client.Options.HttpVersionPolicy = HttpVersionPolicy.RequestVersionExact;
        }

        await client.ConnectAsync(host.WebSocketUrl("/echo"), invoker, RawHttp.Timeout());

        string? answer = client.HttpResponseHeaders?.TryGetValue("Sec-WebSocket-Extensions", out IEnumerable<string>? values) == true ? string.Join(",", values) : null;
        Assert.NotNull(answer);
        Assert.StartsWith("permessage-deflate", answer, StringComparison.Ordinal);
        Assert.Equal(!clientContext, answer.Contains("client_no_context_takeover", StringComparison.Ordinal));

        string json = string.Concat(Enumerable.Range(0, 40).Select(i => $"{{\"id\":{i},\"name\":\"user{i % 7}\",\"online\":true}},"));
        byte[] binary = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat(json, 80))); // ~130 KB
        foreach ((byte[] message, WebSocketMessageType type) in new[]
        {
            (Encoding.UTF8.GetBytes(json), WebSocketMessageType.Text),
            (Encoding.UTF8.GetBytes(json), WebSocketMessageType.Text), // again: a back-reference with context
            (Array.Empty<byte>(), WebSocketMessageType.Text),
            (binary, WebSocketMessageType.Binary),
            (Encoding.UTF8.GetBytes("héllo wörld"), WebSocketMessageType.Text),
        })
        {
            await client.SendAsync(message, type, endOfMessage: true, RawHttp.Timeout());
            Assert.Equal(message, await ReceiveAsync(client, type));
        }

        // A fragmented message: ClientWebSocket compresses it as one message over two frames.
        byte[] fragmented = Encoding.UTF8.GetBytes(json + json);
        await client.SendAsync(fragmented.AsMemory(0, 700), WebSocketMessageType.Text, endOfMessage: false, RawHttp.Timeout());
        await client.SendAsync(fragmented.AsMemory(700), WebSocketMessageType.Text, endOfMessage: true, RawHttp.Timeout());
        Assert.Equal(fragmented, await ReceiveAsync(client, WebSocketMessageType.Text));

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "bye", RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    [Fact]
    public async Task TheServerCompressesWholeMessagesFromTheThresholdUpWithRsv1()
    {
        await using KestrelHost host = await StartEchoAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 32 });
        using System.Net.Sockets.Socket socket = await RawHttp.ConnectAsync(host.EndPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo", "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n")), RawHttp.Timeout());
        string head = await RawHttp.ReadHeadAsync(socket);
        Assert.Contains("Sec-WebSocket-Extensions: permessage-deflate\r\n", head, StringComparison.Ordinal);

        byte[] json = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("{\"id\":1,\"name\":\"user\",\"online\":true},", 30)));
        await socket.SendAsync(WireFrames.Client(WebSocketOpcode.Text, json), RawHttp.Timeout()); // uncompressed from us: allowed
        await socket.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "tiny"u8), RawHttp.Timeout()); // below the threshold
        await socket.SendAsync(WireFrames.ClientClose(1000), RawHttp.Timeout());
        byte[] received = await RawHttp.ReadToEndAsync(socket);

        // First echo: FIN, RSV1, Text, compressed (much shorter than the JSON); second: uncompressed; then the Close.
        Assert.Equal(0xC1, received[0]);
        int length = received[1] & 0x7F;
        Assert.True(length < json.Length / 4, $"{length} bytes on the wire for {json.Length}");
        Assert.Equal(json, ReferenceDeflate.Inflate(received.AsSpan(2, length))); // inflated independently
        Assert.Equal(0x81, received[2 + length]);
        Assert.Equal("tiny"u8.ToArray(), received.AsSpan(4 + length, 4).ToArray());
    }

    [Fact]
    public async Task WithoutDeflateOptionsTheOfferIsDeclinedAndMessagesFlowUncompressed()
    {
        await using KestrelHost host = await StartEchoAsync(deflate: null);
        using var client = new ClientWebSocket();
        client.Options.CollectHttpResponseDetails = true;
        client.Options.DangerousDeflateOptions = new WebSocketDeflateOptions();

        await client.ConnectAsync(host.WebSocketUrl("/echo"), RawHttp.Timeout());

        Assert.False(client.HttpResponseHeaders?.ContainsKey("Sec-WebSocket-Extensions") ?? false);
        await client.SendAsync("plain"u8.ToArray(), WebSocketMessageType.Text, true, RawHttp.Timeout());
        Assert.Equal("plain"u8.ToArray(), await ReceiveAsync(client, WebSocketMessageType.Text));
    }

    private static async Task<byte[]> ReceiveAsync(ClientWebSocket client, WebSocketMessageType expected)
    {
        var received = new MemoryStream();
        byte[] buffer = new byte[16 * 1024];
        while (true)
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(buffer, RawHttp.Timeout());
            Assert.Equal(expected, result.MessageType);
            received.Write(buffer, 0, result.Count);
            if (result.EndOfMessage)
            {
                return received.ToArray();
            }
        }
    }
}
