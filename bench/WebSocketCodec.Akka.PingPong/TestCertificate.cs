using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.Akka.PingPong;

/// <summary>A self-signed server certificate for 127.0.0.1 / localhost, made at start and written as a PKCS#12 file
/// to a temporary folder (both TLS transports read a file path and a password from HOCON); deleted on dispose.</summary>
public sealed class TestCertificate : IDisposable
{
    private readonly string _folder;

    private TestCertificate(string folder, string path, string password)
    {
        _folder = folder;
        Path = path;
        Password = password;
    }

    /// <summary>The PKCS#12 file.</summary>
    public string Path { get; }

    /// <summary>The file's password.</summary>
    public string Password { get; }

    /// <summary>Makes the certificate (the samples' self-signed one, valid for a day) and writes the file.</summary>
    public static TestCertificate Create()
    {
        using X509Certificate2 certificate = SelfSignedCertificate.Create();

        string password = Convert.ToHexString(RandomNumberGenerator.GetBytes(12));
        string folder = Directory.CreateTempSubdirectory("akka-pingpong-").FullName;
        string path = System.IO.Path.Combine(folder, "pingpong.pfx");
        File.WriteAllBytes(path, certificate.Export(X509ContentType.Pkcs12, password));
        return new TestCertificate(folder, path, password);
    }

    /// <inheritdoc />
    public void Dispose()
    {
        try
        {
            Directory.Delete(_folder, recursive: true);
        }
        catch (IOException)
        {
            // a transport may still hold the file open; the temp folder is cleaned up later
        }
    }
}
