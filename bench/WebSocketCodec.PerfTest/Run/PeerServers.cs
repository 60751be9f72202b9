using WebSocketCodec.Bench;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// The servers outside .NET the perf tool measures ours against, from <c>Peers/</c> beside the tool: Bun 1.4.4
/// (uWebSockets) from npm's <c>@oven/bun-linux-x64</c>, installed here with <c>npm ci</c> from the committed lock file
/// on first use, and a C epoll byte echo (the limit), compiled here with <c>gcc</c> on first use. Both speak the
/// tool's server protocol (<c>port N</c> on stdout, <c>gc</c> on stdin, stop when stdin ends).
/// </summary>
public static class PeerServers
{
    /// <summary>The npm package that carries Bun's Linux x64 binary.</summary>
    public const string BunPackage = "@oven/bun-linux-x64";

    /// <summary>The folder of the peers' sources, beside the tool's assembly (the build copies it there).</summary>
    public static string Folder { get; } = Path.Combine(Path.GetDirectoryName(typeof(PeerServers).Assembly.Location)!, "Peers");

    /// <summary>Bun's binary once installed.</summary>
    public static string BunBinary => Path.Combine(Folder, "node_modules", "@oven", "bun-linux-x64", "bin", "bun");

    /// <summary>The compiled C echo.</summary>
    public static string EpollEchoBinary => Path.Combine(Folder, "epoll-echo");

    private static readonly SemaphoreSlim Preparing = new(1, 1);

    /// <summary>Whether <paramref name="variant"/> is served by a peer, not by .NET.</summary>
    public static bool IsPeer(string variant) => variant is Variants.Bun or Variants.EpollEcho;

    /// <summary>Why <paramref name="variant"/> cannot run here (null when it can be prepared): Linux x64 only, and the
    /// tool it needs on PATH (npm for Bun, gcc for the C echo).</summary>
    public static string? Unavailable(string variant)
    {
        if (!OperatingSystem.IsLinux() || System.Runtime.InteropServices.RuntimeInformation.OSArchitecture != System.Runtime.InteropServices.Architecture.X64)
        {
            return $"{variant} runs on Linux x64 only.";
        }

        return variant switch
        {
            Variants.Bun when !File.Exists(BunBinary) && ChildProcess.Which("npm") is null => "bun needs npm on PATH to install Bun (npm's @oven/bun-linux-x64).",
            Variants.EpollEcho when !File.Exists(EpollEchoBinary) && ChildProcess.Which("gcc") is null => "c-epoll needs gcc on PATH (Debian: apt-get install gcc).",
            _ => null,
        };
    }

    /// <summary>Whether <paramref name="variant"/> serves TLS (Bun does, with the tool's throwaway certificate; the C
    /// echo does not).</summary>
    public static bool ServesTls(string variant) => variant == Variants.Bun;

    /// <summary>The command line that starts <paramref name="variant"/>'s server, installing or compiling it first when
    /// needed (with <paramref name="tls"/>: Bun over TLS with a throwaway certificate written as PEM files for it);
    /// throws with the reason when it cannot.</summary>
    public static async Task<string[]> CommandAsync(string variant, bool tls = false, CancellationToken cancellationToken = default)
    {
        if (tls && !ServesTls(variant))
        {
            throw new NotSupportedException($"{variant} does not serve TLS.");
        }

        if (Unavailable(variant) is { } reason)
        {
            throw new InvalidOperationException(reason);
        }

        await Preparing.WaitAsync(cancellationToken);
        try
        {
            return variant switch
            {
                Variants.Bun => [await InstallBunAsync(cancellationToken), Path.Combine(Folder, "bun-echo.js"), .. tls ? CertificateFiles() : []],
                Variants.EpollEcho => [await CompileEchoAsync(cancellationToken)],
                _ => throw new ArgumentException($"'{variant}' is not a peer variant.", nameof(variant)),
            };
        }
        finally
        {
            Preparing.Release();
        }
    }

    /// <summary>The throwaway certificate (the samples' self-signed one for localhost and 127.0.0.1) as
    /// <c>--tls CERT.pem KEY.pem</c> in a folder of its own under the temporary folder.</summary>
    private static string[] CertificateFiles() => Certificate.Value;

    private static readonly Lazy<string[]> Certificate = new(WriteCertificate); // one per run of the tool

    private static string[] WriteCertificate()
    {
        using System.Security.Cryptography.X509Certificates.X509Certificate2 certificate = WebSocketCodec.Samples.EchoServer.SelfSignedCertificate.Create();
        using System.Security.Cryptography.RSA key = System.Security.Cryptography.X509Certificates.RSACertificateExtensions.GetRSAPrivateKey(certificate)!;
        string folder = Directory.CreateTempSubdirectory("wsc-perf-tls-").FullName;
        string cert = Path.Combine(folder, "cert.pem"), keyFile = Path.Combine(folder, "key.pem");
        File.WriteAllText(cert, certificate.ExportCertificatePem());
        File.WriteAllText(keyFile, key.ExportPkcs8PrivateKeyPem());
        return ["--tls", cert, keyFile];
    }

    private static async Task<string> InstallBunAsync(CancellationToken cancellationToken)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        limit.CancelAfter(TimeSpan.FromMinutes(3));
        try
        {
            await ChildProcess.EnsureNpmPackageAsync(Folder, BunPackage, limit.Token);
        }
        catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
        {
            throw new InvalidOperationException($"npm ci took more than 3 min in {Folder}.");
        }

        return File.Exists(BunBinary) ? BunBinary : throw new InvalidOperationException($"{BunPackage} is installed in {Folder} but {BunBinary} is not there.");
    }

    private static async Task<string> CompileEchoAsync(CancellationToken cancellationToken)
    {
        string source = Path.Combine(Folder, "epoll-echo.c");
        if (!File.Exists(EpollEchoBinary) || File.GetLastWriteTimeUtc(EpollEchoBinary) < File.GetLastWriteTimeUtc(source))
        {
            await RunAsync(ChildProcess.Which("gcc")!, ["-O2", "-Wall", "-Wextra", "-Werror", "-o", EpollEchoBinary, source], TimeSpan.FromMinutes(1), cancellationToken);
        }

        return EpollEchoBinary;
    }

    private static async Task RunAsync(string program, string[] arguments, TimeSpan timeout, CancellationToken cancellationToken)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        limit.CancelAfter(timeout);
        (int exit, string output, string error) = await ChildProcess.RunAsync(program, arguments, Folder, limit.Token);
        string command = $"{Path.GetFileName(program)} {string.Join(' ', arguments)}";
        cancellationToken.ThrowIfCancellationRequested();
        if (limit.IsCancellationRequested)
        {
            throw new InvalidOperationException($"{command} took more than {timeout.TotalMinutes:0} min in {Folder}.");
        }

        if (exit != 0)
        {
            string log = output + error;
            throw new InvalidOperationException($"{command} failed ({exit}) in {Folder}:\n{log[Math.Max(0, log.Length - 3000)..]}");
        }
    }
}
