using System.Collections.Concurrent;
using System.Diagnostics;

namespace WebSocketCodec.Testing;

/// <summary>
/// Installs a Debian package with apt-get when the program a test needs is missing, once per package per test
/// process. Where it cannot be installed because the machine cannot (no apt-get, not root) or the package source is
/// unreachable, the caller gets the reason to report itself skipped with; any other install failure throws, with
/// apt-get's output.
/// </summary>
public static class DebianPackage
{
    private static readonly ConcurrentDictionary<string, Lazy<Task<string?>>> Installs = new(StringComparer.Ordinal);

    /// <summary>Makes sure <paramref name="find"/> finds the program, installing <paramref name="package"/> if it does
    /// not. Returns null when it is there, else the reason to skip.</summary>
    public static Task<string?> EnsureAsync(string package, Func<string?> find)
    {
        ArgumentNullException.ThrowIfNull(package);
        ArgumentNullException.ThrowIfNull(find);
        return find() is not null ? Task.FromResult<string?>(null)
            : Installs.GetOrAdd(package, _ => new Lazy<Task<string?>>(() => InstallAsync(package, find))).Value;
    }

    /// <summary>The full path of <paramref name="name"/> on PATH, or null.</summary>
    public static string? Which(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, name)).FirstOrDefault(File.Exists);

    private static async Task<string?> InstallAsync(string package, Func<string?> find)
    {
        if (Which("apt-get") is null || Environment.UserName != "root")
        {
            return $"{package} is not installed and apt-get cannot install it here (needs Debian and root).";
        }

        string log;
        try
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(6));
            log = await RunAsync("apt-get", "update -qq", timeout.Token)
                + await RunAsync("apt-get", $"install -y -qq --no-install-recommends {package}", timeout.Token);
        }
        catch (OperationCanceledException)
        {
            throw new InvalidOperationException($"apt-get took more than 6 minutes to install {package}.");
        }

        if (find() is not null)
        {
            return null;
        }

        // A package source that cannot be reached is the machine's problem, not the code's: skipped, with the line that
        // shows it. Anything else (a renamed package, a broken dpkg) is a failure.
        string? unreachable = InstallOutcome.UnreachableLine(log);
        return unreachable is not null
            ? $"the Debian package source is unreachable, so {package} could not be installed: {unreachable}"
            : throw new InvalidOperationException($"apt-get could not install {package}:\n{log[Math.Max(0, log.Length - 3000)..]}");
    }

    private static async Task<string> RunAsync(string file, string arguments, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(file, arguments) { RedirectStandardOutput = true, RedirectStandardError = true };
        start.Environment["DEBIAN_FRONTEND"] = "noninteractive";
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync(cancellationToken);
        Task<string> error = process.StandardError.ReadToEndAsync(cancellationToken);
        await process.WaitForExitAsync(cancellationToken);
        return $"{file} {arguments}: exit {process.ExitCode}\n{await output}\n{await error}\n";
    }
}
