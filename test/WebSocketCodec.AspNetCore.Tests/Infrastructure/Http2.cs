using System.Net;
using System.Net.Http;
using System.Net.Security;
using System.Net.WebSockets;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary>HTTP/2 clients for tests: one connection per handler (no extra connections), self-signed certificates
/// trusted.</summary>
public static class Http2
{
    public static SocketsHttpHandler Handler(bool multipleConnections = false) => new()
    {
        EnableMultipleHttp2Connections = multipleConnections,
        SslOptions = new SslClientAuthenticationOptions { RemoteCertificateValidationCallback = (_, _, _, _) => true },
    };

    public static ClientWebSocket Client()
    {
        var client = new ClientWebSocket();
        client.Options.HttpVersion = HttpVersion.Version20;
        client.Options.HttpVersionPolicy = HttpVersionPolicy.RequestVersionExact;
        client.Options.CollectHttpResponseDetails = true;
        return client;
    }

    public static HttpClient HttpClient(bool tls = false) => new(Handler())
    {
        DefaultRequestVersion = HttpVersion.Version20,
        DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        Timeout = TimeSpan.FromSeconds(20),
    };
}
