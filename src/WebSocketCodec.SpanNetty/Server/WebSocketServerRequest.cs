using System.Security.Cryptography.X509Certificates;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

/// <summary>Picks the websocket for a validated upgrade request, told of its connection too (the client's certificate,
/// the channel), its callbacks or null to refuse (404): use it instead of <see cref="WebSocketRoute"/> when the choice
/// depends on the connection.</summary>
/// <param name="request">The validated request, its target and its connection.</param>
public delegate Func<WebSocketFrameSender, IWebSocketFrameListener>? WebSocketRequestRoute(WebSocketServerRequest request);

/// <summary>What the SpanNetty websocket server tells the application of a validated opening request, as a
/// <see cref="WebSocketRequestRoute"/> gets it: read the path, the client's certificate or the channel from it to pick
/// the websocket's callbacks. It holds the request, its target and the connection it came on (over HTTP/2, the
/// connection that carries the stream).</summary>
public sealed class WebSocketServerRequest
{
    internal WebSocketServerRequest(WebSocketUpgradeRequest upgrade, string target, IChannel connection)
    {
        Upgrade = upgrade;
        Target = target;
        Connection = connection;
        ClientCertificate = connection.Pipeline.Get<SslStreamHandler>()?.RemoteCertificate;
    }

    /// <summary>The validated upgrade request (key, origin, offered subprotocols and extensions).</summary>
    public WebSocketUpgradeRequest Upgrade { get; }

    /// <summary>The request target (path and query), as sent; over HTTP/2 the <c>:path</c>.</summary>
    public string Target { get; }

    /// <summary>The path of the target (the part before <c>?</c>).</summary>
    public string Path => Target.IndexOf('?', StringComparison.Ordinal) is var query and >= 0 ? Target[..query] : Target;

    /// <summary>The connection's channel (its remote address, its pipeline).</summary>
    public IChannel Connection { get; }

    /// <summary>The certificate the client presented in the TLS handshake of the connection's
    /// <see cref="SslStreamHandler"/>, or null (cleartext, SpanNetty's own TLS handler, or none asked for: set
    /// <c>ClientCertificateRequired</c> and a <c>RemoteCertificateValidationCallback</c> in the handler's
    /// <see cref="System.Net.Security.SslServerAuthenticationOptions"/> to require and check one).</summary>
    public X509Certificate2? ClientCertificate { get; }
}
