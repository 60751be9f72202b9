using System.Net.Security;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>A private CA, a client certificate it issued, and a self-signed one it did not; the server's check trusts
/// that CA alone (a custom root trust, as a service with its own PKI does).</summary>
public static class TestCertificates
{
    private static readonly Lazy<(X509Certificate2 Authority, X509Certificate2 Trusted, X509Certificate2 Untrusted)> Made = new(Make);

    public static X509Certificate2 Authority => Made.Value.Authority;

    public static X509Certificate2 Trusted => Made.Value.Trusted;

    public static X509Certificate2 Untrusted => Made.Value.Untrusted;

    /// <summary>Whether <paramref name="certificate"/> chains to <see cref="Authority"/>.</summary>
    public static bool IssuedByAuthority(X509Certificate2? certificate)
    {
        if (certificate is null)
        {
            return false;
        }

        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.Add(Authority);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        return chain.Build(certificate);
    }

    /// <summary>The server check for a TLS handshake: a certificate, issued by the authority.</summary>
    public static bool Check(object sender, System.Security.Cryptography.X509Certificates.X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors) =>
        certificate is not null && IssuedByAuthority(certificate as X509Certificate2 ?? X509CertificateLoader.LoadCertificate(certificate.GetRawCertData()));

    private static (X509Certificate2, X509Certificate2, X509Certificate2) Make()
    {
        using var authorityKey = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var authorityRequest = new CertificateRequest("CN=WebSocketCodec test CA", authorityKey, HashAlgorithmName.SHA256);
        authorityRequest.CertificateExtensions.Add(new X509BasicConstraintsExtension(true, false, 0, true));
        authorityRequest.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign, true));
        X509Certificate2 authority = authorityRequest.CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1));

        X509Certificate2 issuer = authority; // made with its key
        X509Certificate2 trusted = Client(key =>
            new CertificateRequest("CN=trusted client", key, HashAlgorithmName.SHA256).Also(ClientUsage)
                .Create(issuer, DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1), [1, 2, 3, 4]).CopyWithPrivateKey(key));
        X509Certificate2 untrusted = Client(key =>
            new CertificateRequest("CN=untrusted client", key, HashAlgorithmName.SHA256).Also(ClientUsage)
                .CreateSelfSigned(DateTimeOffset.UtcNow.AddMinutes(-5), DateTimeOffset.UtcNow.AddDays(1)));
        return (authority, trusted, untrusted);
    }

    private static X509Certificate2 Client(Func<ECDsa, X509Certificate2> make)
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        using X509Certificate2 made = make(key);
        return X509CertificateLoader.LoadPkcs12(made.Export(X509ContentType.Pkcs12), null); // a key SslStream can use
    }

    private static void ClientUsage(CertificateRequest request) =>
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.2")], false));

    private static CertificateRequest Also(this CertificateRequest request, Action<CertificateRequest> add)
    {
        add(request);
        return request;
    }
}
