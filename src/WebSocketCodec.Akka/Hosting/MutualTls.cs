using Microsoft.AspNetCore.Server.Kestrel.Https;

namespace WebSocketCodec.Akka;

/// <summary>
/// The self-hosted listener's side of <c>tls.require-client-certificate = on</c>: every TLS handshake must carry a
/// client certificate, or fails. The certificate's chain must validate against the system's trust store (Kestrel's
/// default check), unless <c>tls.suppress-validation = on</c>, which accepts any certificate (tests only).
/// </summary>
internal static class MutualTls
{
    public static void Require(HttpsConnectionAdapterOptions https, bool suppressValidation)
    {
        https.ClientCertificateMode = ClientCertificateMode.RequireCertificate;
        if (suppressValidation)
        {
            https.ClientCertificateValidation = static (_, _, _) => true;
        }
    }
}
