using System.Security.Cryptography.X509Certificates;

namespace WebSocketCodec.Pipelines;

/// <summary>The outcome of a server's opening handshake on a raw transport, as <see cref="WebSocketServerHandshake"/>
/// returns it and the Kestrel fast path hands it to its application: run the websocket when it is
/// <see cref="Accepted"/>, and read the request, target, subprotocol and client certificate from it.</summary>
/// <param name="Request">The validated request, when accepted.</param>
/// <param name="Target">The request target (path and query), when a request line was read.</param>
/// <param name="Subprotocol">The selected subprotocol.</param>
/// <param name="Failure">Why it was refused (the status was sent), or none when accepted.</param>
public sealed record WebSocketAcceptResult(
    WebSocketUpgradeRequest? Request, string? Target, string? Subprotocol, HandshakeFailure Failure)
{
    /// <summary>Whether the 101 was sent and the websocket may run.</summary>
    public bool Accepted => Request is not null && !Failure.IsFailure;

    /// <summary>The permessage-deflate parameters the 101 accepted (null: not negotiated). The fast path turns the
    /// extension on by itself; over a raw transport of your own call
    /// <see cref="WebSocketConnection.EnablePerMessageDeflate(DeflateParameters, PerMessageDeflateOptions)"/> with them
    /// and the options' <see cref="WebSocketAcceptOptions.Deflate"/>.</summary>
    public DeflateParameters? Deflate { get; init; }

    /// <summary>The certificate the client presented in the connection's TLS handshake, or null. The Kestrel fast path
    /// fills it in; require one with Kestrel's <c>HttpsConnectionAdapterOptions.ClientCertificateMode</c>.</summary>
    public X509Certificate2? ClientCertificate { get; init; }
}
