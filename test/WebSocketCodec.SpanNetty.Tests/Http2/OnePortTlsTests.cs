using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Net.WebSockets;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// HTTP/1.1 and HTTP/2 on one TLS SpanNetty port (<see cref="SslStreamHandler"/> offering h2 and http/1.1,
/// <see cref="AlpnProtocolSelector"/>): <see cref="ClientWebSocket"/> over HTTP/1.1 and <see cref="HttpClient"/> over
/// h2 on the same port; a TLS client that offers no ALPN at all is served HTTP/1.1.
/// </summary>
public sealed class OnePortTlsTests : LeakCheckedTests
{
    private static readonly Lazy<X509Certificate2> Certificate = new(OnePortServer.CreateCertificate);

    [Fact]
    public async Task AWebSocketOverHttp11AndAnH2RequestShareTheTlsPort()
    {
        await using OnePortServer server = await OnePortServer.StartAsync(Certificate.Value);

        using (var webSocket = new ClientWebSocket())
        {
            webSocket.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
            await webSocket.ConnectAsync(new Uri($"wss://localhost:{server.Port}/ws"), Timeout());
            await webSocket.SendAsync("over TLS"u8.ToArray(), WebSocketMessageType.Text, endOfMessage: true, Timeout());
            byte[] buffer = new byte[64];
            WebSocketReceiveResult echoed = await webSocket.ReceiveAsync(buffer, Timeout());
            Assert.Equal("over TLS", Encoding.UTF8.GetString(buffer, 0, echoed.Count));
            await webSocket.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        }

        var handler = new SocketsHttpHandler
        {
            SslOptions = new SslClientAuthenticationOptions { RemoteCertificateValidationCallback = (_, _, _, _) => true },
        };
        using (var client = new HttpClient(handler))
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, $"https://localhost:{server.Port}/")
            {
                Version = HttpVersion.Version20,
                VersionPolicy = HttpVersionPolicy.RequestVersionExact, // ALPN h2 only
            };
            using HttpResponseMessage response = await client.SendAsync(request, Timeout());
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal(HttpVersion.Version20, response.Version);
        }

        Assert.Equal(1, server.Http1Connections);
        Assert.Equal(1, server.Http2Connections);
    }

    [Fact]
    public async Task ATlsClientWithoutAlpnIsServedHttp11()
    {
        await using OnePortServer server = await OnePortServer.StartAsync(Certificate.Value);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(server.EndPoint);
        using var tls = new SslStream(new NetworkStream(socket, ownsSocket: false));
        await tls.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
        {
            TargetHost = "localhost",
            RemoteCertificateValidationCallback = (_, _, _, _) => true, // and no ApplicationProtocols
        }, Timeout());
        Assert.Equal(default, tls.NegotiatedApplicationProtocol);
        await tls.WriteAsync(Encoding.ASCII.GetBytes(
            "GET /ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"), Timeout());
        byte[] buffer = new byte[512];
        var head = new StringBuilder();
        while (!head.ToString().Contains("\r\n\r\n", StringComparison.Ordinal))
        {
            int read = await tls.ReadAsync(buffer, Timeout());
            Assert.NotEqual(0, read);
            head.Append(Encoding.ASCII.GetString(buffer, 0, read));
        }

        Assert.StartsWith("HTTP/1.1 101 ", head.ToString());
        Assert.Equal(1, server.Http1Connections);
    }

    private static CancellationToken Timeout() => new CancellationTokenSource(TimeSpan.FromSeconds(10)).Token;
}
