using System.Net.Security;
using System.Security.Cryptography.X509Certificates;

namespace WebSocketCodec.Akka;

/// <summary>
/// The TLS options of outbound associations: the application's own (<see cref="WebSocketRemotingSetup.ClientTls"/>)
/// or the transport's (the system's trust store, or any certificate with <c>tls.suppress-validation</c>), with the
/// client certificate to present for mutual TLS added when the application's options present none of their own.
/// </summary>
internal static class OutboundTls
{
    /// <summary>The options every outbound TLS association uses (the target host is set per association).</summary>
    /// <param name="given">The application's options, or null.</param>
    /// <param name="suppressValidation">tls.suppress-validation: accept any server certificate (when the application gave
    /// no options).</param>
    /// <param name="clientCertificate">The certificate to present when a server asks for one, or null.</param>
    public static SslClientAuthenticationOptions Create(SslClientAuthenticationOptions? given, bool suppressValidation, X509Certificate2? clientCertificate)
    {
        if (given is not null)
        {
            return clientCertificate is null || PresentsOwnCertificate(given) ? given : WithCertificate(given, clientCertificate);
        }

        var options = new SslClientAuthenticationOptions();
        if (suppressValidation)
        {
#pragma warning disable CA5359 // tls.suppress-validation: an explicit opt-in, documented as for tests only
            options.RemoteCertificateValidationCallback = static (_, _, _, _) => true;
#pragma warning restore CA5359
        }

        if (clientCertificate is not null)
        {
            options.ClientCertificates = [clientCertificate];
        }

        return options;
    }

    private static bool PresentsOwnCertificate(SslClientAuthenticationOptions options) =>
        options.ClientCertificates is { Count: > 0 } || options.ClientCertificateContext is not null || options.LocalCertificateSelectionCallback is not null;

    /// <summary>A copy of the application's options that also presents <paramref name="certificate"/> (the
    /// application's object is left as it was given).</summary>
    private static SslClientAuthenticationOptions WithCertificate(SslClientAuthenticationOptions given, X509Certificate2 certificate)
    {
        var copy = new SslClientAuthenticationOptions
        {
            ClientCertificates = [certificate],
            TargetHost = given.TargetHost,
            AllowRenegotiation = given.AllowRenegotiation,
            AllowTlsResume = given.AllowTlsResume,
            ApplicationProtocols = given.ApplicationProtocols,
            CertificateChainPolicy = given.CertificateChainPolicy,
            CertificateRevocationCheckMode = given.CertificateRevocationCheckMode,
            CipherSuitesPolicy = given.CipherSuitesPolicy,
            EnabledSslProtocols = given.EnabledSslProtocols,
            EncryptionPolicy = given.EncryptionPolicy,
            RemoteCertificateValidationCallback = given.RemoteCertificateValidationCallback,
        };
        if (OperatingSystem.IsLinux() || OperatingSystem.IsWindows())
        {
            copy.AllowRsaPssPadding = given.AllowRsaPssPadding;
            copy.AllowRsaPkcs1Padding = given.AllowRsaPkcs1Padding;
        }

        return copy;
    }
}
