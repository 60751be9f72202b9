using System.Net;
using System.Net.Security;
using System.Net.WebSockets;
using System.Security.Cryptography.X509Certificates;
using System.Text;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using static WebSocketCodec.SpanNetty.Tests.Http2.H2Clients;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// .NET's <see cref="ClientWebSocket"/> over HTTP/2 with TLS (ALPN h2, a self-signed certificate) against our SpanNetty
/// HTTP/2 server, and on the echo server's one port, where HTTP/1.1 (101) and HTTP/2 (200) websockets share the same
/// TLS port and the same cleartext port. Every websocket ends cleanly on the server, its pool is balanced and no buffer
/// leaked.
/// </summary>
public sealed class ClientWebSocketTlsTests : LeakCheckedTests
{
    private static readonly Lazy<X509Certificate2> Certificate = new(OnePortServer.CreateCertificate);

    [Fact]
    public async Task ClientWebSocketEchoesOverH2WithTls()
    {
        var pool = new CountingPool();
        var ended = new System.Collections.Concurrent.ConcurrentQueue<WebSocketCloseInfo>();
        await using Http2Server server = await Http2Server.StartAsync(pipeline =>
        {
            pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
            {
                ServerCertificate = Certificate.Value,
                ApplicationProtocols = [SslApplicationProtocol.Http2],
            }));
            Http2WebSocketServer.Configure(
                pipeline, "/ws", sender => EchoCallbacks.Messages(sender, ended.Enqueue),
                new WebSocketAcceptOptions { Session = new WebSocketSessionOptions { Pool = pool } });
        });
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        var clients = new List<ClientWebSocket>();
        try
        {
            for (int i = 0; i < 3; i++)
            {
                clients.Add(await ConnectAsync(invoker, new Uri($"wss://localhost:{server.Port}/ws"), o => o.CollectHttpResponseDetails = true));
            }

            foreach (int size in new[] { 0, 125, 70_000, 1 << 20 })
            {
                await Task.WhenAll(clients.Select(async client =>
                {
                    byte[] payload = Payload(size);
                    await client.SendAsync(payload, WebSocketMessageType.Binary, true, Timeout());
                    var (type, echoed) = await ReceiveAsync(client);
                    Assert.Equal(WebSocketMessageType.Binary, type);
                    Assert.Equal(payload, echoed);
                }));
            }

            Assert.All(clients, client => Assert.Equal(HttpStatusCode.OK, client.HttpStatusCode)); // HTTP/2: 200, not 101
            Assert.Single(server.Connections); // one TLS connection carries them all
            await Task.WhenAll(clients.Select(client => client.CloseAsync(WebSocketCloseStatus.NormalClosure, "bye", Timeout())));
            Assert.All(clients, client => Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus));
        }
        finally
        {
            clients.ForEach(client => client.Dispose());
        }

        await UntilAsync(() => ended.Count == 3);
        Assert.All(ended, info => Assert.True(info.IsClean, info.ToString()));
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.BadReturns);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task HttpOneAndHttpTwoWebSocketsShareTheEchoServersPort(bool tls)
    {
        var pool = new CountingPool();
        var ended = new System.Collections.Concurrent.ConcurrentQueue<WebSocketCloseInfo>();
        await using SpanNettyEchoHost host = await SpanNettyEchoHost.StartAsync(new SpanNettyEchoOptions
        {
            Port = 0,
            Threads = 1,
            Tls = tls,
            Session = new WebSocketSessionOptions { Pool = pool },
            Ended = ended.Enqueue,
        });
        using var invoker = new HttpMessageInvoker(Http2Requests.Handler());
        foreach (Version version in new[] { HttpVersion.Version11, HttpVersion.Version20, HttpVersion.Version11 })
        {
            using var client = new ClientWebSocket();
            client.Options.HttpVersion = version;
            client.Options.HttpVersionPolicy = HttpVersionPolicy.RequestVersionExact;
            client.Options.CollectHttpResponseDetails = true;
            if (version == HttpVersion.Version20)
            {
                await client.ConnectAsync(host.Url, invoker, Timeout());
            }
            else
            {
                client.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
                await client.ConnectAsync(host.Url, Timeout());
            }

            Assert.Equal(version == HttpVersion.Version20 ? HttpStatusCode.OK : HttpStatusCode.SwitchingProtocols, client.HttpStatusCode);
            string text = $"over HTTP/{version} {(tls ? "with TLS" : "in cleartext")} ✓";
            // Fragmented: the message echo gathers it in a pooled buffer.
            byte[] bytes = Encoding.UTF8.GetBytes(text);
            await client.SendAsync(bytes.AsMemory(0, 5), WebSocketMessageType.Text, false, Timeout());
            await client.SendAsync(bytes.AsMemory(5), WebSocketMessageType.Text, true, Timeout());
            var (type, echoed) = await ReceiveAsync(client);
            Assert.Equal(WebSocketMessageType.Text, type);
            Assert.Equal(text, Encoding.UTF8.GetString(echoed));
            await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        }

        await UntilAsync(() => ended.Count == 3);
        Assert.All(ended, info => Assert.True(info.IsClean, info.ToString()));
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.BadReturns);
    }

    internal static async Task UntilAsync(Func<bool> condition)
    {
        for (int i = 0; i < 200 && !condition(); i++)
        {
            await Task.Delay(50);
        }

        Assert.True(condition(), "not reached within 10 s");
    }
}
