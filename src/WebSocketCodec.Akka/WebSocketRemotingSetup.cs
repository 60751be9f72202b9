using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using Akka.Actor.Setup;

namespace WebSocketCodec.Akka;

/// <summary>What HOCON cannot carry, given to the <see cref="WebSocketTransport"/> through the actor system's setup
/// (<c>BootstrapSetup.Create().WithConfig(config).And(new WebSocketRemotingSetup { ... })</c>): add it when an actor
/// system configured with HOCON needs an application's services (endpoint mode), certificate objects or client TLS
/// options.</summary>
public sealed class WebSocketRemotingSetup : Setup
{
    /// <summary>Endpoint mode: the services of an ASP.NET Core application that called
    /// <see cref="AkkaRemotingEndpointExtensions.AddAkkaRemoting"/> and mapped
    /// <see cref="AkkaRemotingEndpointExtensions.MapAkkaRemoting"/>. The transport then binds nothing: inbound
    /// associations come through the application's endpoint, on the application's port.</summary>
    public IServiceProvider? Services { get; init; }

    /// <summary>The server certificate of a self-hosted listener with <c>tls.enabled = on</c> (instead of
    /// <c>tls.certificate.path</c>).</summary>
    public X509Certificate2? ServerCertificate { get; init; }

    /// <summary>How outbound TLS associations authenticate the peer (instead of the system's trust store, or of
    /// <c>tls.suppress-validation</c>). The target host is set per association. When these options present no
    /// certificate of their own (no <c>ClientCertificates</c>, <c>ClientCertificateContext</c> or
    /// <c>LocalCertificateSelectionCallback</c>), the transport adds the client certificate it would present (see
    /// <see cref="ClientCertificate"/>) to a copy of them.</summary>
    public SslClientAuthenticationOptions? ClientTls { get; init; }

    /// <summary>Mutual TLS: the certificate (with its private key) outbound associations present when the peer's
    /// listener asks for one (<c>tls.require-client-certificate = on</c> there), instead of
    /// <c>tls.client-certificate.path</c>. Reach for it when the certificate comes from a store or a secret manager
    /// rather than a file. Without either, a node with <c>tls.require-client-certificate = on</c> presents its own
    /// server certificate.</summary>
    public X509Certificate2? ClientCertificate { get; init; }
}
