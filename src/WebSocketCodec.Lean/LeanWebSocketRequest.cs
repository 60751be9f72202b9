using System.Net;
using System.Security.Cryptography.X509Certificates;

namespace WebSocketCodec.Lean;

/// <summary>What the application is told of an accepted websocket's opening request on a
/// <see cref="LeanWebSocketServer"/>: read the target and path, the header fields, the subprotocol, the client's
/// address and certificate from it to decide what the websocket serves.</summary>
public sealed class LeanWebSocketRequest
{
    internal LeanWebSocketRequest(HttpHead head, WebSocketAcceptDecision decision, IPEndPoint? remoteEndPoint, bool isSecure)
    {
        Head = head;
        Upgrade = decision.Request!;
        Subprotocol = decision.Subprotocol;
        Deflate = decision.Deflate;
        RemoteEndPoint = remoteEndPoint;
        IsSecure = isSecure;
    }

    /// <summary>The request head: method, target, version and header fields.</summary>
    public HttpHead Head { get; }

    /// <summary>The request target (path and query), as sent.</summary>
    public string Target => Head.Target;

    /// <summary>The path of the target (the part before <c>?</c>).</summary>
    public string Path => Target.IndexOf('?') is var query and >= 0 ? Target[..query] : Target;

    /// <summary>The validated upgrade request (key, origin, offered subprotocols and extensions).</summary>
    public WebSocketUpgradeRequest Upgrade { get; }

    /// <summary>The negotiated subprotocol, or null.</summary>
    public string? Subprotocol { get; }

    /// <summary>The permessage-deflate parameters in force, or null.</summary>
    public DeflateParameters? Deflate { get; }

    /// <summary>The client's address.</summary>
    public IPEndPoint? RemoteEndPoint { get; }

    /// <summary>Whether the websocket runs over TLS.</summary>
    public bool IsSecure { get; }

    /// <summary>The certificate the client presented in the TLS handshake, or null (cleartext, or none asked for: set
    /// <c>ClientCertificateRequired</c> and a <c>RemoteCertificateValidationCallback</c> in
    /// <see cref="LeanWebSocketServerOptions.Tls"/> to require and check one).</summary>
    public X509Certificate2? ClientCertificate { get; internal init; }
}
