using System.Net;
using System.Net.Security;

namespace WebSocketCodec;

/// <summary>How a client connects and what it offers (subprotocols, header fields, permessage-deflate, TLS, a proxy,
/// the handshake timeout), and the websocket's options once open: pass it to <c>WebSocketClient</c> or
/// <c>WebSocketHttp2Client</c>, or set it as <c>ReconnectingWebSocketOptions.Client</c>, when the defaults
/// (<see cref="Default"/>) do not fit.</summary>
public sealed record WebSocketClientOptions
{
    /// <summary>The defaults, used when a client is given no options: a <see cref="HandshakeTimeout"/> of 10 s, no
    /// <see cref="Subprotocols"/> or <see cref="Headers"/>, <see cref="WebSocketSessionOptions.Default"/> as
    /// <see cref="Session"/>, no permessage-deflate offered (<see cref="Deflate"/> null), the system's certificate
    /// validation with the URI's host as <c>TargetHost</c> (<see cref="Tls"/> null), and a direct connection
    /// (<see cref="Proxy"/> null).</summary>
    public static WebSocketClientOptions Default { get; } = new();

    /// <summary>Subprotocols to offer, most preferred first.</summary>
    public IReadOnlyList<string> Subprotocols { get; init; } = [];

    /// <summary>Further request header fields (Origin, Authorization, cookies...).</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers { get; init; } = [];

    /// <summary>How long connecting (through the proxy, if any), TLS and the opening handshake may take together
    /// (10 s).</summary>
    public TimeSpan HandshakeTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Limits and timeouts of the websocket once open.</summary>
    public WebSocketSessionOptions Session { get; init; } = WebSocketSessionOptions.Default;

    /// <summary>permessage-deflate (RFC 7692) to offer: null (the default) offers nothing. Offered, a server that
    /// accepts it gets its answer checked (a bad answer fails the handshake), the server's compressed messages are
    /// inflated before the application sees them, and whole messages sent with <c>Send</c>, <c>TrySend</c> and
    /// <c>SendAsync</c> are compressed from <see cref="PerMessageDeflateOptions.Threshold"/> up.</summary>
    public PerMessageDeflateOptions? Deflate { get; init; }

    /// <summary>TLS options for <c>wss</c>; <c>TargetHost</c> defaults to the URI's host.</summary>
    public SslClientAuthenticationOptions? Tls { get; init; }

    /// <summary>The HTTP proxy to go through, as for <c>HttpClient</c>: for each server the proxy's
    /// <see cref="IWebProxy.GetProxy"/> (asked with the <c>http</c>/<c>https</c> form of the URI) and
    /// <see cref="IWebProxy.IsBypassed"/> decide, and the websocket is tunnelled with HTTP CONNECT (RFC 9110 section
    /// 9.3.6), with Basic credentials from <see cref="IWebProxy.Credentials"/> or the proxy URI's user information. Null
    /// (the default) connects directly; <c>HttpClient.DefaultProxy</c> follows the <c>HTTP_PROXY</c>,
    /// <c>HTTPS_PROXY</c>, <c>ALL_PROXY</c> and <c>NO_PROXY</c> variables. SOCKS and HTTPS proxies are refused with a
    /// <see cref="NotSupportedException"/> (never a silent direct connection). The HTTP/2 client takes its proxy from
    /// its handler (<c>WebSocketHttp2Client.CreateHandler(options)</c>).</summary>
    public IWebProxy? Proxy { get; init; }

    /// <summary>Checks what a client was given before it connects: the subprotocols to offer are HTTP tokens (RFC 6455
    /// section 4.1), none twice. A client calls it first: a caller's mistake is not a failed handshake.</summary>
    /// <exception cref="ArgumentException">A subprotocol is not a token, or is offered twice.</exception>
    public void Validate() => WebSocketCodec.Subprotocols.ValidateOffer(Subprotocols, "options");
}
