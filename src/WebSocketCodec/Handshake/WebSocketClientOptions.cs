using System.Net.Security;

namespace WebSocketCodec;

/// <summary>How <c>WebSocketClient</c> connects.</summary>
public sealed record WebSocketClientOptions
{
    /// <summary>The defaults.</summary>
    public static WebSocketClientOptions Default { get; } = new();

    /// <summary>Subprotocols to offer, most preferred first.</summary>
    public IReadOnlyList<string> Subprotocols { get; init; } = [];

    /// <summary>Further request header fields (Origin, Authorization, cookies...).</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Headers { get; init; } = [];

    /// <summary>How long connecting, TLS and the opening handshake may take together.</summary>
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

    /// <summary>Checks what a client was given before it connects: the subprotocols to offer are HTTP tokens (RFC 6455
    /// section 4.1), none twice. A client calls it first: a caller's mistake is not a failed handshake.</summary>
    /// <exception cref="ArgumentException">A subprotocol is not a token, or is offered twice.</exception>
    public void Validate() => WebSocketCodec.Subprotocols.ValidateOffer(Subprotocols, "options");
}
