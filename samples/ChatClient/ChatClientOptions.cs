using System.Net;
using System.Net.Security;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.ChatClient;

/// <summary>Where the chat client connects and how: the room's websocket, the nickname its texts carry, the proxy,
/// TLS, HTTP/1.1 or HTTP/2, and when it tries again.</summary>
public sealed record ChatClientOptions
{
    /// <summary>The room's websocket, <c>ws://host:port/chat/{room}</c> or <c>wss://</c>.</summary>
    public required Uri Url { get; init; }

    /// <summary>The nickname every text sent carries.</summary>
    public required string Nick { get; init; }

    /// <summary>The HTTP proxy to tunnel through with CONNECT (<c>http://[user:pass@]host:port</c>); null (the default)
    /// takes <see cref="HttpClient.DefaultProxy"/>, which follows <c>HTTP_PROXY</c> (for <c>ws://</c>),
    /// <c>HTTPS_PROXY</c> (for <c>wss://</c>), <c>ALL_PROXY</c> and <c>NO_PROXY</c> as curl and <c>HttpClient</c>
    /// do, and connects directly when none is set.</summary>
    public Uri? Proxy { get; init; }

    /// <summary>Trust any server certificate (the chat sample's <c>--tls</c> one is self-signed).</summary>
    public bool Insecure { get; init; }

    /// <summary>Open the websocket as an HTTP/2 stream (RFC 8441 extended CONNECT): prior knowledge for <c>ws://</c>,
    /// ALPN h2 for <c>wss://</c>.</summary>
    public bool Http2 { get; init; }

    /// <summary>When to try again: 250 ms doubling to at most 5 s (someone at the keyboard is back within 5 s of the
    /// server), half of each delay random, with no limit.</summary>
    public ReconnectBackoff Backoff { get; init; } = ReconnectBackoff.Default with { MaxDelay = TimeSpan.FromSeconds(5) };

    /// <summary>How each websocket connects: the proxy and the certificate check these options give.</summary>
    public WebSocketClientOptions ClientOptions() => WebSocketClientOptions.Default with
    {
        Proxy = Proxy is { } proxy ? new WebProxy(proxy) : HttpClient.DefaultProxy,
        Tls = Insecure ? new SslClientAuthenticationOptions { RemoteCertificateValidationCallback = (_, _, _, _) => true } : null,
    };
}
