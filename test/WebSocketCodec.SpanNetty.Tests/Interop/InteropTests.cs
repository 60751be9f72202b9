using System.Net;
using System.Net.WebSockets;
using System.Text;
using DotNetty.Buffers;
using DotNetty.Codecs.Http;
using DotNetty.Codecs.Http.WebSockets;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using WebSocketCodec.Samples.SpanNettyEchoServer;

namespace WebSocketCodec.SpanNetty.Tests.Interop;

/// <summary>Over loopback sockets: our SpanNetty server against ClientWebSocket, our Pipelines client and SpanNetty's
/// own client; our SpanNetty client against SpanNetty's own server and Kestrel; on managed sockets and libuv, in
/// cleartext and TLS.</summary>
public sealed class InteropTests : LeakCheckedTests
{
    private static readonly int[] Sizes = [0, 1, 125, 126, 65_535, 65_536, 1 << 20];

    [Theory]
    [InlineData("socket", false, false)]
    [InlineData("socket", true, false)]
    [InlineData("libuv", false, false)]
    [InlineData("libuv", true, false)]
    [InlineData("socket", false, true)] // the sample's one port: HTTP/2 by prior knowledge (h2c)
    [InlineData("socket", true, true)] // ... and by ALPN h2
    [InlineData("libuv", false, true)]
    [InlineData("libuv", true, true)]
    public async Task ClientWebSocketEchoesEverySizeAndClosesCleanly(string transport, bool tls, bool http2)
    {
        await using SpanNettyEchoHost server = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Transport = transport, Tls = tls, Threads = 2 });
        using var client = new ClientWebSocket();
        if (!http2)
        {
            client.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true; // over HTTP/2 the handler's
        }

        client.Options.CollectHttpResponseDetails = true;
        using var handler = new SocketsHttpHandler { SslOptions = { RemoteCertificateValidationCallback = (_, _, _, _) => true } };
        using var invoker = new HttpMessageInvoker(handler);
        if (http2)
        {
            client.Options.HttpVersion = System.Net.HttpVersion.Version20;
            client.Options.HttpVersionPolicy = HttpVersionPolicy.RequestVersionExact;
        }

        await client.ConnectAsync(server.Url, http2 ? invoker : null, Timeout());
        Assert.Equal(http2 ? HttpStatusCode.OK : HttpStatusCode.SwitchingProtocols, client.HttpStatusCode);
        foreach (int size in Sizes)
        {
            byte[] payload = Payload(size);
            await client.SendAsync(payload, WebSocketMessageType.Binary, true, Timeout());
            Assert.Equal(payload, await ReceiveAsync(client));
        }

        await client.SendAsync(Encoding.UTF8.GetBytes("τέλος"), WebSocketMessageType.Text, true, Timeout());
        Assert.Equal("τέλος", Encoding.UTF8.GetString(await ReceiveAsync(client)));
        await client.CloseAsync(System.Net.WebSockets.WebSocketCloseStatus.NormalClosure, "done", Timeout());
        Assert.Equal(System.Net.WebSockets.WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OurPipelinesClientEchoesAgainstOurSpanNettyServer(bool tls)
    {
        await using SpanNettyEchoHost server = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Tls = tls, Threads = 1 });
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(server.Url, new WebSocketClientOptions
        {
            Tls = new System.Net.Security.SslClientAuthenticationOptions { TargetHost = "localhost", RemoteCertificateValidationCallback = (_, _, _, _) => true },
        }, Timeout());
        for (int i = 0; i < 100; i++)
        {
            await socket.SendTextAsync($"message {i}", Timeout());
            using WebSocketMessage? reply = await socket.ReceiveAsync(Timeout());
            Assert.Equal($"message {i}", Encoding.UTF8.GetString(reply!.Payload.Span));
        }

        await socket.CloseAsync(cancellationToken: Timeout());
    }

    [Fact]
    public async Task SpanNettysOwnClientEchoesAgainstOurServer()
    {
        await using SpanNettyEchoHost server = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Codec = "ours-frames", Threads = 1 });
        var group = new MultithreadEventLoopGroup(1);
        System.Threading.Channels.Channel<string> received = System.Threading.Channels.Channel.CreateUnbounded<string>();
        var protocol = new WebSocketClientProtocolHandler(WebSocketClientProtocolConfig.NewBuilder()
            .WebSocketUri(server.Url).Version(WebSocketVersion.V13).Build());
        try
        {
            IChannel channel = await new Bootstrap().Group(group).Channel<TcpSocketChannel>()
                .Handler(new ActionChannelInitializer<IChannel>(ch => ch.Pipeline.AddLast(
                    new HttpClientCodec(), new HttpObjectAggregator(8192), protocol, new TextCollector(received.Writer))))
                .ConnectAsync(new IPEndPoint(IPAddress.Loopback, server.Url.Port));
            await Eventually.True(() => protocol.Handshaker.IsHandshakeComplete);
            for (int i = 0; i < 20; i++)
            {
                await channel.WriteAndFlushAsync(new TextWebSocketFrame($"frame {i}"));
                Assert.Equal($"frame {i}", await received.Reader.ReadAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(20)));
            }

            await channel.WriteAndFlushAsync(new CloseWebSocketFrame(DotNetty.Codecs.Http.WebSockets.WebSocketCloseStatus.NormalClosure, (AsciiString)"bye"));
            await channel.CloseCompletion.WaitAsync(TimeSpan.FromSeconds(20)); // we close the TCP connection after the Close exchange
        }
        finally
        {
            await group.ShutdownGracefullyAsync(TimeSpan.Zero, TimeSpan.FromSeconds(2));
        }
    }

    [Theory]
    [InlineData("builtin", false)]
    [InlineData("builtin", true)]
    [InlineData("ours", true)]
    public async Task OurSpanNettyClientEchoesAgainstSpanNettyServers(string codec, bool tls)
    {
        await using SpanNettyEchoHost server = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions { Port = 0, Codec = codec, Tls = tls, Threads = 1 });
        await using SpanNettyClient client = await SpanNettyClient.ConnectAsync(server.Url);
        await EchoAndCloseAsync(client);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OurSpanNettyClientEchoesAgainstKestrel(bool tls)
    {
        await using EchoServerHost server = await EchoServerHost.StartAsync(new EchoServerOptions { Port = 0, Tls = tls });
        await using SpanNettyClient client = await SpanNettyClient.ConnectAsync(new Uri($"{(tls ? "wss" : "ws")}://127.0.0.1:{server.EndPoint.Port}{EchoServerHost.EchoPath}"));
        await EchoAndCloseAsync(client);
    }

    private static async Task EchoAndCloseAsync(SpanNettyClient client)
    {
        foreach (int size in Sizes)
        {
            byte[] payload = Payload(size);
            await client.SendAsync(WebSocketOpcode.Binary, payload);
            Assert.Equal(payload, (await client.ReceiveAsync()).Payload);
        }

        await client.SendAsync(WebSocketOpcode.Text, "frag"u8.ToArray(), fin: false);
        await client.SendAsync(WebSocketOpcode.Continuation, "ments"u8.ToArray());
        var message = await client.ReceiveAsync();
        Assert.Equal(WebSocketMessageType.Text, message.Type);
        Assert.Equal("fragments", Encoding.UTF8.GetString(message.Payload));
        WebSocketCloseInfo info = await client.CloseAsync();
        Assert.True(info.IsClean, info.ToString());
    }

    private static byte[] Payload(int size)
    {
        byte[] payload = new byte[size];
        new Random(size).NextBytes(payload);
        return payload;
    }

    private static async Task<byte[]> ReceiveAsync(ClientWebSocket client)
    {
        var message = new MemoryStream();
        byte[] buffer = new byte[64 * 1024];
        while (true)
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(buffer, Timeout());
            message.Write(buffer, 0, result.Count);
            if (result.EndOfMessage)
            {
                return message.ToArray();
            }
        }
    }

    private static CancellationToken Timeout() => new CancellationTokenSource(TimeSpan.FromSeconds(30)).Token;

    private sealed class TextCollector(System.Threading.Channels.ChannelWriter<string> received) : SimpleChannelInboundHandler<TextWebSocketFrame>
    {
        protected override void ChannelRead0(IChannelHandlerContext ctx, TextWebSocketFrame msg) => received.TryWrite(msg.Text());
    }
}
