using System.Collections.Concurrent;
using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using WebSocketCodec.AspNetCore.Tests.Client;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.SpanNetty.Tests.Http2;

namespace WebSocketCodec.SpanNetty.Tests.Tls;

/// <summary>
/// Mutual TLS on the SpanNetty server: <see cref="SslStreamHandler"/> requires a client certificate and checks it
/// against a private CA; the route is told whose it is (<see cref="WebSocketServerRequest.ClientCertificate"/>), over
/// HTTP/1.1 and HTTP/2. A missing or untrusted certificate never gets a websocket.
/// </summary>
public sealed class ClientCertificateTests : LeakCheckedTests
{
    private static readonly Lazy<X509Certificate2> ServerCertificate = new(OnePortServer.CreateCertificate);

    public enum Presented
    {
        Trusted,
        None,
        Untrusted,
    }

    [Theory]
    [InlineData(false, Presented.Trusted)]
    [InlineData(false, Presented.None)]
    [InlineData(false, Presented.Untrusted)]
    [InlineData(true, Presented.Trusted)]
    [InlineData(true, Presented.None)]
    [InlineData(true, Presented.Untrusted)]
    public async Task OnlyATrustedClientCertificateGetsAWebSocketAndTheApplicationSeesIt(bool http2, Presented presented)
    {
        var seen = new ConcurrentQueue<string>();
        await using Http2Server server = await Http2Server.StartAsync(pipeline =>
        {
            pipeline.AddLast("tls", SslStreamHandler.Server(new SslServerAuthenticationOptions
            {
                ServerCertificate = ServerCertificate.Value,
                ClientCertificateRequired = true,
                RemoteCertificateValidationCallback = TestCertificates.Check,
                ApplicationProtocols = [http2 ? SslApplicationProtocol.Http2 : SslApplicationProtocol.Http11],
            }));
            WebSocketRequestRoute route = request =>
            {
                seen.Enqueue(request.ClientCertificate?.Subject ?? "none");
                return request.Path == "/who" ? sender => EchoCallbacks.Messages(sender) : null;
            };
            if (http2)
            {
                Http2WebSocketServer.Configure(pipeline, route);
            }
            else
            {
                pipeline.AddLast("upgrade", new WebSocketServerUpgradeHandler(route));
            }
        });

        X509Certificate2? certificate = presented switch
        {
            Presented.Trusted => TestCertificates.Trusted,
            Presented.Untrusted => TestCertificates.Untrusted,
            _ => null,
        };
        var options = new WebSocketClientOptions
        {
            Tls = new SslClientAuthenticationOptions
            {
                RemoteCertificateValidationCallback = (_, _, _, _) => true, // the server's own certificate is self-signed
                ClientCertificates = certificate is null ? null : [certificate],
            },
            HandshakeTimeout = TimeSpan.FromSeconds(10),
        };
        var url = new Uri($"wss://127.0.0.1:{server.Port}/who");
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(options));
        if (presented != Presented.Trusted)
        {
            await Assert.ThrowsAsync<WebSocketHandshakeException>(() => ConnectAsync(invoker, url, options, http2));
            Assert.Empty(seen); // the route never ran
            return;
        }

        await using (MessageWebSocket webSocket = await ConnectAsync(invoker, url, options, http2))
        {
            await webSocket.SendTextAsync("who am I");
            using WebSocketMessage? echoed = await webSocket.ReceiveAsync().AsTask().WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal("who am I", echoed!.GetText());
            WebSocketCloseInfo closed = await webSocket.CloseAsync(CloseStatus.NormalClosure, "bye").WaitAsync(TimeSpan.FromSeconds(10));
            Assert.True(closed.IsClean, closed.ToString());
        }

        Assert.Equal("CN=trusted client", Assert.Single(seen));
    }

    private static async Task<MessageWebSocket> ConnectAsync(HttpMessageInvoker invoker, Uri url, WebSocketClientOptions options, bool http2) =>
        http2
            ? await WebSocketHttp2Client.ConnectMessagesAsync(invoker, url, options)
            : await WebSocketClient.ConnectMessagesAsync(url, options);
}
