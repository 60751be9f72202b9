using System.Net;
using System.Net.Http;
using System.Net.Security;
using System.Net.WebSockets;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>HTTP/2 clients for tests: one connection per handler (no extra connections), self-signed certificates
/// trusted.</summary>
public static class Http2Requests
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

    /// <summary>An RFC 8441 extended CONNECT to <paramref name="path"/>; <paramref name="protocol"/> null makes a classic
    /// CONNECT.</summary>
    public static HttpRequestMessage ExtendedConnect(Uri baseUrl, string path, string? protocol = "websocket", string? version = "13")
    {
        var request = new HttpRequestMessage(HttpMethod.Connect, new Uri(baseUrl, path))
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        if (protocol is not null)
        {
            request.Headers.Protocol = protocol;
        }

        if (version is not null)
        {
            request.Headers.TryAddWithoutValidation("sec-websocket-version", version);
        }

        return request;
    }
}
