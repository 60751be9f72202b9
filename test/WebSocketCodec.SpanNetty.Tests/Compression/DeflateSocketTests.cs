using System.Net;
using System.Net.WebSockets;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Compression;

/// <summary>permessage-deflate over loopback sockets: our SpanNetty client and server with each other, .NET's
/// <see cref="ClientWebSocket"/> against our SpanNetty server, our SpanNetty client against our Kestrel endpoint, and the
/// server's compressed frame read off a raw socket and inflated with <c>DeflateStream</c>.</summary>
public sealed class DeflateSocketTests : LeakCheckedTests
{
    private static readonly string Json = string.Concat(Enumerable.Range(0, 40).Select(i => $"{{\"id\":{i},\"name\":\"user{i % 7}\",\"online\":true}},"));

    private static WebSocketMessageListener<WebSocketFrameSender> Echo(WebSocketFrameSender sender, CountingPool? pool = null) =>
        new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
            s.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload), pool);

    /// <summary>The messages each test sends: repeated JSON (back-references with context), empty, non-ASCII text, a
    /// large binary one (several frames' worth compressed), and many small ones.</summary>
    private static IEnumerable<(WebSocketOpcode Opcode, byte[] Payload)> Messages()
    {
        yield return (WebSocketOpcode.Text, Encoding.UTF8.GetBytes(Json));
        yield return (WebSocketOpcode.Text, Encoding.UTF8.GetBytes(Json));
        yield return (WebSocketOpcode.Text, []);
        yield return (WebSocketOpcode.Binary, []);
        yield return (WebSocketOpcode.Text, Encoding.UTF8.GetBytes("héllo wörld, τέλος"));
        byte[] large = new byte[1 << 20];
        new Random(26).NextBytes(large.AsSpan(0, 4096)); // partly random, mostly compressible
        Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat(Json, 400))).AsSpan(0, 500_000).CopyTo(large.AsSpan(8192));
        yield return (WebSocketOpcode.Binary, large);
        for (int i = 0; i < 200; i++)
        {
            yield return (WebSocketOpcode.Text, Encoding.UTF8.GetBytes($"{{\"seq\":{i},\"payload\":\"{new string((char)('a' + (i % 26)), i % 90)}\"}}"));
        }
    }

    [Theory]
    [InlineData(true, true)]
    [InlineData(false, false)]
    [InlineData(true, false)]
    public async Task OurSpanNettyClientAndServerExchangeCompressedMessages(bool clientContext, bool serverContext)
    {
        var serverPool = new CountingPool();
        var clientPool = new CountingPool();
        await using (CallbacksServer server = await CallbacksServer.StartAsync(
            sender => Echo(sender, serverPool), WebSocketSessionOptions.Default with { Pool = serverPool }, new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }))
        {
            await using SpanNettyClient client = await SpanNettyClient.ConnectAsync(
                server.Url, new WebSocketClientOptions { Session = WebSocketSessionOptions.Default with { Pool = clientPool } },
                new PerMessageDeflateOptions { OwnContextTakeover = clientContext, PeerContextTakeover = serverContext });
            DeflateParameters settled = Assert.IsType<DeflateParameters>(client.WebSocket.Deflate);
            Assert.Equal(!clientContext, settled.ClientNoContextTakeover);
            Assert.Equal(!serverContext, settled.ServerNoContextTakeover);

            foreach ((WebSocketOpcode opcode, byte[] payload) in Messages())
            {
                await client.SendAsync(opcode, payload);
                var (type, echoed) = await client.ReceiveAsync();
                Assert.Equal(opcode == WebSocketOpcode.Text ? WebSocketMessageType.Text : WebSocketMessageType.Binary, type);
                Assert.Equal(payload, echoed);
            }

            // A fragmented message goes uncompressed, and comes back whole and compressed.
            byte[] whole = Encoding.UTF8.GetBytes(Json + Json);
            await client.SendAsync(WebSocketOpcode.Text, whole[..700], fin: false);
            await client.SendAsync(WebSocketOpcode.Continuation, whole[700..]);
            Assert.Equal(whole, (await client.ReceiveAsync()).Payload);

            WebSocketCloseInfo info = await client.CloseAsync();
            Assert.Equal(CloseStatus.NormalClosure, info.Status);
        }

        await Eventually.True(() => serverPool.Outstanding == 0 && clientPool.Outstanding == 0);
        serverPool.AssertBalanced();
        clientPool.AssertBalanced();
    }

    [Theory]
    [InlineData(true, true)]
    [InlineData(false, false)]
    public async Task ClientWebSocketExchangesCompressedMessagesWithOurSpanNettyServer(bool clientContext, bool serverContext)
    {
        var pool = new CountingPool();
        await using (CallbacksServer server = await CallbacksServer.StartAsync(
            sender => Echo(sender, pool), WebSocketSessionOptions.Default with { Pool = pool }, new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }))
        {
            using var client = new ClientWebSocket();
            client.Options.CollectHttpResponseDetails = true;
            client.Options.DangerousDeflateOptions = new WebSocketDeflateOptions { ClientContextTakeover = clientContext, ServerContextTakeover = serverContext };
            await client.ConnectAsync(server.Url, RawHttp.Timeout());
            string? answer = client.HttpResponseHeaders?.TryGetValue("Sec-WebSocket-Extensions", out IEnumerable<string>? values) == true ? string.Join(",", values) : null;
            Assert.NotNull(answer);
            Assert.StartsWith("permessage-deflate", answer, StringComparison.Ordinal);
            Assert.Equal(!serverContext, answer.Contains("server_no_context_takeover", StringComparison.Ordinal));

            foreach ((WebSocketOpcode opcode, byte[] payload) in Messages())
            {
                var type = opcode == WebSocketOpcode.Text ? WebSocketMessageType.Text : WebSocketMessageType.Binary;
                await client.SendAsync(payload, type, endOfMessage: true, RawHttp.Timeout());
                Assert.Equal(payload, await ReceiveAsync(client, type));
            }

            // ClientWebSocket compresses a fragmented message as one message over two frames.
            byte[] whole = Encoding.UTF8.GetBytes(Json + Json);
            await client.SendAsync(whole.AsMemory(0, 700), WebSocketMessageType.Text, endOfMessage: false, RawHttp.Timeout());
            await client.SendAsync(whole.AsMemory(700), WebSocketMessageType.Text, endOfMessage: true, RawHttp.Timeout());
            Assert.Equal(whole, await ReceiveAsync(client, WebSocketMessageType.Text));

            await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "bye", RawHttp.Timeout());
            Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
        }

        await Eventually.True(() => pool.Outstanding == 0);
        pool.AssertBalanced();
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task OurSpanNettyClientExchangesCompressedMessagesWithOurKestrelEndpoint(bool context)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http1));
        await using WebApplication app = builder.Build();
        app.MapWebSocket(
            "/echo",
            (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
                s.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload)),
            options => options.Deflate = new PerMessageDeflateOptions { PeerContextTakeover = true, OwnContextTakeover = context });
        await app.StartAsync();
        try
        {
            var url = new Uri(app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First().Replace("http://", "ws://", StringComparison.Ordinal) + "/echo");
            await using SpanNettyClient client = await SpanNettyClient.ConnectAsync(url, deflate: new PerMessageDeflateOptions { PeerContextTakeover = true, OwnContextTakeover = context });
            DeflateParameters settled = Assert.IsType<DeflateParameters>(client.WebSocket.Deflate);
            Assert.Equal(!context, settled.ServerNoContextTakeover);
            Assert.Equal(!context, settled.ClientNoContextTakeover);
            foreach ((WebSocketOpcode opcode, byte[] payload) in Messages())
            {
                await client.SendAsync(opcode, payload);
                Assert.Equal(payload, (await client.ReceiveAsync()).Payload);
            }

            Assert.Equal(CloseStatus.NormalClosure, (await client.CloseAsync()).Status);
        }
        finally
        {
            await app.StopAsync();
        }
    }

    [Fact]
    public async Task TheServersCompressedFrameInflatesWithDeflateStream()
    {
        await using CallbacksServer server = await CallbacksServer.StartAsync(sender => Echo(sender), WebSocketSessionOptions.Default, new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true });
        using System.Net.Sockets.Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws", "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n")), RawHttp.Timeout());
        string head = await RawHttp.ReadHeadAsync(socket);
        Assert.Contains("\r\nSec-WebSocket-Extensions: permessage-deflate\r\n", head, StringComparison.Ordinal);

        byte[] json = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("{\"id\":1,\"name\":\"user\",\"online\":true},", 30)));
        await socket.SendAsync(WireFrames.Client(0xC1, ReferenceDeflate.Compress(json)), RawHttp.Timeout()); // compressed by us
        await socket.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "tiny"u8), RawHttp.Timeout()); // below the threshold
        await socket.SendAsync(WireFrames.ClientClose(1000), RawHttp.Timeout());
        byte[] received = await RawHttp.ReadToEndAsync(socket);

        Assert.Equal(0xC1, received[0]); // FIN, RSV1, Text
        int length = received[1];
        Assert.True(length <= 125, $"{length}: more than 125 B on the wire for {json.Length}");
        Assert.Equal(json, ReferenceDeflate.Inflate(received.AsSpan(2, length)));
        var rest = WireFrames.Read(received.AsSpan(2 + length), WebSocketRole.Client);
        Assert.Equal(0x81, received[2 + length]);
        Assert.Equal("tiny"u8.ToArray(), rest[0].Payload);
        Assert.Equal(1000, WireFrames.CloseStatusOf(rest[1].Payload));
    }

    [Theory]
    [InlineData("bomb", 1009)]
    [InlineData("corrupt", 1007)]
    public async Task ABombOrCorruptDataOverASocketGetsItsCloseStatusAndThePoolIsBalanced(string input, int status)
    {
        var pool = new CountingPool();
        await using (CallbacksServer server = await CallbacksServer.StartAsync(
            sender => Echo(sender, pool), WebSocketSessionOptions.Default with { Pool = pool, MaxMessagePayloadLength = 64 * 1024 }, new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }))
        {
            using System.Net.Sockets.Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
            await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws", "Sec-WebSocket-Extensions: permessage-deflate\r\n")), RawHttp.Timeout());
            Assert.Contains("\r\nSec-WebSocket-Extensions: permessage-deflate\r\n", await RawHttp.ReadHeadAsync(socket), StringComparison.Ordinal);

            byte[] payload = input == "bomb" ? ReferenceDeflate.Compress(new byte[1 << 20]) : [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01];
            await socket.SendAsync(WireFrames.Client(0xC2, payload), RawHttp.Timeout());
            byte[] received = await ReadFrameAsync(socket);
            Assert.Equal(0x88, received[0]);
            Assert.Equal(status, WireFrames.CloseStatusOf(received.AsSpan(2)));
            await socket.SendAsync(WireFrames.ClientClose((ushort)status), RawHttp.Timeout());
            Assert.Empty(await RawHttp.ReadToEndAsync(socket)); // then the server closes the connection
        }

        await Eventually.True(() => pool.Outstanding == 0);
        pool.AssertBalanced();
    }

    [Fact]
    public async Task ASocketThatDropsInTheMiddleOfACompressedMessageLeavesNothingBehind()
    {
        var pool = new CountingPool();
        var closed = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (CallbacksServer server = await CallbacksServer.StartAsync(
            sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, type, payload) =>
                s.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload), pool, info => closed.TrySetResult(info)),
            WebSocketSessionOptions.Default with { Pool = pool }, new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }))
        {
            using System.Net.Sockets.Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
            await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws", "Sec-WebSocket-Extensions: permessage-deflate\r\n")), RawHttp.Timeout());
            await RawHttp.ReadHeadAsync(socket);
            byte[] json = Encoding.UTF8.GetBytes(Json);
            await socket.SendAsync(WireFrames.Client(0xC1, ReferenceDeflate.Compress(json)), RawHttp.Timeout()); // echoed compressed
            Assert.Equal(0xC1, (await ReadFrameAsync(socket))[0]);
            byte[] next = ReferenceDeflate.Compress(json);
            await socket.SendAsync(WireFrames.Client(0x41, next.AsSpan(0, next.Length / 2)), RawHttp.Timeout()); // RSV1, no FIN: inflating
            await Eventually.True(() => pool.Rented > 0 && pool.Outstanding > 0);
            socket.Close(0); // gone, mid-message
            await closed.Task.WaitAsync(TimeSpan.FromSeconds(20));
        }

        await Eventually.True(() => pool.Outstanding == 0);
        pool.AssertBalanced();
    }

    /// <summary>Reads one unmasked frame (7- or 16-bit length) off the socket.</summary>
    private static async Task<byte[]> ReadFrameAsync(System.Net.Sockets.Socket socket)
    {
        byte[] head = new byte[4];
        await ReadExactlyAsync(socket, head.AsMemory(0, 2));
        int length = head[1] & 0x7F;
        int headerLength = 2;
        if (length == 126)
        {
            await ReadExactlyAsync(socket, head.AsMemory(2, 2));
            length = (head[2] << 8) | head[3];
            headerLength = 4;
        }

        byte[] frame = new byte[headerLength + length];
        head.AsSpan(0, headerLength).CopyTo(frame);
        await ReadExactlyAsync(socket, frame.AsMemory(headerLength));
        return frame;
    }

    private static async Task ReadExactlyAsync(System.Net.Sockets.Socket socket, Memory<byte> buffer)
    {
        while (buffer.Length > 0)
        {
            int read = await socket.ReceiveAsync(buffer, RawHttp.Timeout());
            Assert.True(read > 0, "the connection closed early");
            buffer = buffer[read..];
        }
    }

    private static async Task<byte[]> ReceiveAsync(ClientWebSocket client, WebSocketMessageType expected)
    {
        var received = new MemoryStream();
        byte[] buffer = new byte[64 * 1024];
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
