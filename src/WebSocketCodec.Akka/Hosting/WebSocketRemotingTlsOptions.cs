using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace WebSocketCodec.Akka;

/// <summary>The transport's TLS (<c>akka.remote.websocket.tls</c>): the server's certificate, as an object or a
/// PKCS#12 file, and how outbound associations check their peers.</summary>
public sealed class WebSocketRemotingTlsOptions
{
    /// <summary>The listener's certificate (with its private key). Takes precedence over
    /// <see cref="CertificatePath"/>.</summary>
    public X509Certificate2? Certificate { get; set; }

    /// <summary><c>tls.certificate.path</c>: a PKCS#12 (.pfx) file holding the certificate and its key.</summary>
    public string? CertificatePath { get; set; }

    /// <summary><c>tls.certificate.password</c>: the file's password.</summary>
    public string? CertificatePassword { get; set; }

    /// <summary><c>tls.suppress-validation</c>: outbound associations accept any certificate (tests only).</summary>
    public bool SuppressValidation { get; set; }

    /// <summary>How outbound associations authenticate their peers, instead of the system's trust store (the target
    /// host is set per association).</summary>
    public SslClientAuthenticationOptions? ClientAuthentication { get; set; }
}
