using System.Collections.Concurrent;

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

    private static async Task<string?> InstallAsync(string package, Func<string?> find)
    {
        if (NodeFixture.Which("apt-get") is null || Environment.UserName != "root")
        {
            return $"{package} is not installed and apt-get cannot install it here (needs Debian and root).";
        }

        string log;
        try
        {
            // Through env: apt-get must not ask anything (DEBIAN_FRONTEND), and the tests' one process runner sets no
            // environment of its own.
            (int updated, string update) = await NodeFixture.RunAsync(
                "env", "DEBIAN_FRONTEND=noninteractive apt-get update -qq", AppContext.BaseDirectory, TimeSpan.FromMinutes(3));
            (int installed, string install) = await NodeFixture.RunAsync(
                "env", $"DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends {package}", AppContext.BaseDirectory, TimeSpan.FromMinutes(6));
            log = $"apt-get update: exit {updated}\n{update}\napt-get install {package}: exit {installed}\n{install}\n";
        }
        catch (TimeoutException)
        {
            throw new InvalidOperationException($"apt-get took too long to install {package}.");
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
}
