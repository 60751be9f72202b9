using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>A throwaway self-signed certificate for 127.0.0.1 and localhost, written to a temporary PKCS#12 file with a
/// password (what <c>tls.certificate.path</c> and <c>tls.certificate.password</c> name); deleted on dispose.</summary>
public sealed class PfxFile : IDisposable
{
    private PfxFile(string path, string password)
    {
        Path = path;
        Password = password;
    }

    /// <summary>The file's path.</summary>
    public string Path { get; }

    /// <summary>The file's password.</summary>
    public string Password { get; }

    /// <summary>The HOCON of a TLS node (under akka.remote.websocket) using this file, trusting any peer.</summary>
    public string Hocon => $$"""
        tls {
          enabled = on
          certificate { path = "{{Path.Replace("\\", "/", StringComparison.Ordinal)}}", password = "{{Password}}" }
          suppress-validation = on
        }
        """;

    /// <summary>Creates the certificate and writes the file.</summary>
    public static PfxFile Create()
    {
        using X509Certificate2 certificate = SelfSignedCertificate.Create();
        string password = Convert.ToHexString(RandomNumberGenerator.GetBytes(8));
        string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"akka-ws-{Guid.NewGuid():N}.pfx");
        File.WriteAllBytes(path, certificate.Export(X509ContentType.Pkcs12, password));
        return new PfxFile(path, password);
    }

    /// <summary>Deletes the file.</summary>
    public void Dispose() => File.Delete(Path);
}
