using System.Net.WebSockets;
using System.Text;
using System.Text.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>Our clients (HTTP/1.1 and HTTP/2) with permessage-deflate against servers that compress: our Kestrel
/// endpoint and fast path, ASP.NET Core's own websockets with <c>DangerousEnableCompression</c>, and node's
/// <c>ws</c> with <c>perMessageDeflate</c>, with and without context takeover on either side.</summary>
public sealed class ClientDeflatePeerTests(NodeFixture node, ITestOutputHelper output) : IClassFixture<NodeFixture>
{
    private static readonly byte[] Json = Encoding.UTF8.GetBytes(
        string.Concat(Enumerable.Range(0, 200).Select(i => $"{{\"id\":{i},\"name\":\"user{i % 9}\",\"tags\":[\"a\",\"b\"],\"online\":{(i % 2 == 0 ? "true" : "false")}}},")));

    [Theory]
    [InlineData(true, true, false)]
    [InlineData(false, true, false)]
    [InlineData(true, false, false)]
    [InlineData(false, false, true)]
    [InlineData(true, true, true)]
    public async Task OurClientAndOurEndpoint(bool clientContext, bool serverContext, bool http2)
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket(
                "/echo",
                (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo),
                options => options.Deflate = new PerMessageDeflateOptions { PeerContextTakeover = true, OwnContextTakeover = serverContext }),
            sharedPort: http2);
        await ConnectAndEchoAsync(host.WebSocketUrl("/echo"), clientContext, serverContext, http2);
    }

    [Fact]
    public async Task ClientWebSocketAndTheFastPath()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(listen: listen => listen.UseWebSockets(
            (_, websocket) => websocket.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, Echo)),
            configure: options => options.Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }));
        using var client = new ClientWebSocket();
        client.Options.CollectHttpResponseDetails = true;
        client.Options.DangerousDeflateOptions = new WebSocketDeflateOptions { ServerContextTakeover = false };

        await client.ConnectAsync(host.WebSocketUrl("/fast"), RawHttp.Timeout());

        string answer = string.Join(",", client.HttpResponseHeaders!["Sec-WebSocket-Extensions"]);
        Assert.StartsWith("permessage-deflate", answer, StringComparison.Ordinal);
        Assert.Contains("server_no_context_takeover", answer, StringComparison.Ordinal);
        for (int i = 0; i < 10; i++)
        {
            await client.SendAsync(Json, WebSocketMessageType.Text, true, RawHttp.Timeout());
            Assert.Equal(Json, await ReceiveAsync(client));
        }

        await EchoRoundTrip.RunAsync(client);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "bye", RawHttp.Timeout());
    }

    [Theory]
    [InlineData(true, true, false)]
    [InlineData(false, false, false)]
    [InlineData(true, true, true)]
    [InlineData(false, true, true)]
    public async Task OurClientAndAspNetCoresCompressingServer(bool clientContext, bool serverContext, bool http2)
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app =>
            {
                app.UseWebSockets();
                app.Map("/aspnet", async context =>
                {
                    using WebSocket websocket = await context.WebSockets.AcceptWebSocketAsync(new WebSocketAcceptContext
                    {
                        DangerousEnableCompression = true,
                        DisableServerContextTakeover = !serverContext,
                    });
                    await EchoAsync(websocket);
                });
            },
            sharedPort: http2);
        await ConnectAndEchoAsync(host.WebSocketUrl("/aspnet"), clientContext, serverContext, http2);
    }

    [SkippableTheory]
    [InlineData(false, false, 0, 0)]
    [InlineData(true, false, 0, 0)]
    [InlineData(false, true, 0, 0)]
    [InlineData(false, false, 10, 0)]
    [InlineData(false, false, 0, 10)]
    public async Task OurClientAndAWsServerWithPerMessageDeflate(bool serverNoContext, bool clientNoContext, int serverBits, int clientBits)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);

        string arguments = FormattableString.Invariant($"{(serverNoContext ? "true" : "false")} {(clientNoContext ? "true" : "false")} {serverBits} {clientBits}");
        var (process, port) = await node.StartEchoServerAsync("deflate-server.mjs", arguments);
        try
        {
            var options = new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 } };
            await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(new Uri($"ws://127.0.0.1:{port}/"), options);
            DeflateParameters settled = socket.Driver.Deflate!.Value;
            output.WriteLine(settled.ToString());
            Assert.Equal(
                new DeflateParameters(serverNoContext, clientNoContext, serverBits == 0 ? 15 : serverBits, clientBits == 0 ? 15 : clientBits),
                settled);

            int messages = 20;
            await EchoJsonAsync(socket, messages);
            await EchoRoundTrip.RunAsync(socket);
            await socket.SendTextAsync("stats");
            using WebSocketMessage? stats = await socket.ReceiveAsync(RawHttp.Timeout());
            output.WriteLine(stats!.GetText());
            using JsonDocument report = JsonDocument.Parse(stats.GetText());
            Assert.Equal("permessage-deflate; client_max_window_bits", report.RootElement.GetProperty("offer").GetString());
            Assert.StartsWith("permessage-deflate", report.RootElement.GetProperty("extensions").GetString(), StringComparison.Ordinal);
            if (clientBits == 0)
            {
                // The JSON went compressed: far fewer bytes reached ws than were sent (the round trip's random binary
                // does not compress, so it is counted at its length).
                long sent = messages * Json.Length;
                long incompressible = EchoRoundTrip.Lengths.Sum(length => (long)length + length / 2 * 2);
                long bytesRead = report.RootElement.GetProperty("bytesRead").GetInt64();
                Assert.True(bytesRead < incompressible + sent / 3, $"{bytesRead} bytes read by ws for {sent} bytes of JSON and {incompressible} of round trip");
            }

            Assert.True((await socket.CloseAsync((CloseStatus)1000, "bye", RawHttp.Timeout())).IsClean);
        }
        finally
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
            process.Dispose();
        }
    }

    /// <summary>Connects our client (HTTP/1.1 or HTTP/2) with deflate offered, checks the settled context takeover,
    /// echoes JSON and the round trip's lengths, and closes cleanly.</summary>
    private static async Task ConnectAndEchoAsync(Uri url, bool clientContext, bool serverContext, bool http2)
    {
        var options = new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { PeerContextTakeover = true, OwnContextTakeover = clientContext } };
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        await using MessageWebSocket socket = http2
            ? await WebSocketHttp2Client.ConnectMessagesAsync(invoker, url, options)
            : await WebSocketClient.ConnectMessagesAsync(url, options);

        DeflateParameters settled = socket.Driver.Deflate!.Value;
        Assert.Equal(!clientContext, settled.ClientNoContextTakeover);
        Assert.Equal(!serverContext, settled.ServerNoContextTakeover);
        await EchoJsonAsync(socket, 20);
        await EchoRoundTrip.RunAsync(socket);
        Assert.True((await socket.CloseAsync((CloseStatus)1000, "bye", RawHttp.Timeout())).IsClean);
    }

    private static async Task EchoJsonAsync(MessageWebSocket socket, int count)
    {
        for (int i = 0; i < count; i++)
        {
            await socket.SendAsync(Json, i % 2 == 0 ? WebSocketMessageType.Text : WebSocketMessageType.Binary);
            using WebSocketMessage? echo = await socket.ReceiveAsync(RawHttp.Timeout());
            Assert.Equal(Json, echo!.Payload.ToArray());
        }
    }

    private static void Echo(WebSocketFrameSender sender, WebSocketMessageType type, ReadOnlySpan<byte> payload) =>
        sender.Send(type == WebSocketMessageType.Text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, payload);

    private static async Task EchoAsync(WebSocket websocket)
    {
        byte[] buffer = new byte[256 * 1024];
        while (true)
        {
            int length = 0;
            ValueWebSocketReceiveResult result;
            do
            {
                result = await websocket.ReceiveAsync(buffer.AsMemory(length), CancellationToken.None);
                length += result.Count;
            }
            while (!result.EndOfMessage);

            if (result.MessageType == WebSocketMessageType.Close)
            {
                await websocket.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, "bye", CancellationToken.None);
                return;
            }

            await websocket.SendAsync(buffer.AsMemory(0, length), result.MessageType, true, CancellationToken.None);
        }
    }

    private static async Task<byte[]> ReceiveAsync(ClientWebSocket client)
    {
        var received = new MemoryStream();
        byte[] buffer = new byte[16 * 1024];
        while (true)
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(buffer, RawHttp.Timeout());
            received.Write(buffer, 0, result.Count);
            if (result.EndOfMessage)
            {
                return received.ToArray();
            }
        }
    }
}
