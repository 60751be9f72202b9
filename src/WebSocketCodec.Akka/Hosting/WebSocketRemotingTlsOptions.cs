using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace WebSocketCodec.Akka;

/// <summary>The transport's TLS (<c>akka.remote.websocket.tls</c>): set it as
/// <see cref="WebSocketRemotingOptions.Tls"/> for <c>akka.wss://</c> addresses, with the server's certificate as an
/// object or a PKCS#12 file, how outbound associations check their peers, and mutual TLS (client
/// certificates).</summary>
public sealed class WebSocketRemotingTlsOptions
{
    /// <summary>The listener's certificate (with its private key). Takes precedence over
    /// <see cref="CertificatePath"/>.</summary>
    public X509Certificate2? Certificate { get; set; }

    /// <summary><c>tls.certificate.path</c>: a PKCS#12 (.pfx) file holding the certificate and its key.</summary>
    public string? CertificatePath { get; set; }

    /// <summary><c>tls.certificate.password</c>: the file's password.</summary>
    public string? CertificatePassword { get; set; }

    /// <summary><c>tls.suppress-validation</c>: outbound associations accept any certificate, and with
    /// <see cref="RequireClientCertificate"/> the listener accepts any client certificate (tests only).</summary>
    public bool SuppressValidation { get; set; }

    /// <summary><c>tls.require-client-certificate</c>: mutual TLS. The self-hosted listener fails the TLS handshake of
    /// a connection that presents no client certificate, or one whose chain the system's trust store does not validate
    /// (any certificate with <see cref="SuppressValidation"/>); in endpoint mode the application's Kestrel asks for and
    /// validates client certificates, and the transport refuses (403) a websocket whose connection presented none.
    /// Outbound associations then present <see cref="ClientCertificate"/>, else <see cref="ClientCertificatePath"/>,
    /// else this node's own certificate.</summary>
    public bool RequireClientCertificate { get; set; }

    /// <summary>The certificate (with its private key) outbound associations present to listeners that require one.
    /// Takes precedence over <see cref="ClientCertificatePath"/>.</summary>
    public X509Certificate2? ClientCertificate { get; set; }

    /// <summary><c>tls.client-certificate.path</c>: a PKCS#12 (.pfx) file with the certificate outbound associations
    /// present to listeners that require one, when it is not this node's own certificate.</summary>
    public string? ClientCertificatePath { get; set; }

    /// <summary><c>tls.client-certificate.password</c>: that file's password.</summary>
    public string? ClientCertificatePassword { get; set; }

    /// <summary>How outbound associations authenticate their peers, instead of the system's trust store (the target
    /// host is set per association).</summary>
    public SslClientAuthenticationOptions? ClientAuthentication { get; set; }
}
