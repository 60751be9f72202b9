using System.Collections.Concurrent;

namespace WebSocketCodec.Testing;

/// <summary>
/// <c>npm ci</c> from a folder's committed lock file, run once per folder per test process however many test classes
/// ask at the same time (<c>npm ci</c> deletes <c>node_modules</c> first, so two at once break each other's install).
/// A registry that cannot be reached is a skip with npm's own line; any other failure fails the caller.
/// </summary>
public static class NpmInstall
{
    private static readonly ConcurrentDictionary<string, Lazy<Task<string?>>> Installs = new(StringComparer.Ordinal);

    private static readonly ConcurrentDictionary<string, SemaphoreSlim> Folders = new(StringComparer.Ordinal);

    /// <summary>Installs into <paramref name="directory"/> unless <paramref name="package"/> is already there. Returns
    /// null when it is installed, or the reason to skip when node/npm are missing or the registry is unreachable;
    /// throws <see cref="InvalidOperationException"/> with npm's output for any other failure.</summary>
    public static Task<string?> EnsureAsync(string directory, string package)
    {
        ArgumentNullException.ThrowIfNull(directory);
        ArgumentNullException.ThrowIfNull(package);
        string key = Path.GetFullPath(directory) + "|" + package;
        return Installs.GetOrAdd(key, _ => new Lazy<Task<string?>>(() => InstallAsync(directory, package))).Value;
    }

    private static async Task<string?> InstallAsync(string directory, string package)
    {
        // One npm ci per folder at a time, whichever package asked: a second one would delete the first's node_modules.
        SemaphoreSlim folder = Folders.GetOrAdd(Path.GetFullPath(directory), _ => new SemaphoreSlim(1, 1));
        await folder.WaitAsync();
        try
        {
            return await InstallOnceAsync(directory, package);
        }
        finally
        {
            folder.Release();
        }
    }

    private static async Task<string?> InstallOnceAsync(string directory, string package)
    {
        if (NodeFixture.Which("node") is null || NodeFixture.Which("npm") is null)
        {
            return "node and npm are not on PATH: the tests that need them did not run.";
        }

        if (File.Exists(Path.Combine(directory, "node_modules", package, "package.json")))
        {
            return null;
        }

        (int exit, string output) result;
        try
        {
            result = await NodeFixture.RunAsync("npm", "ci --no-audit --no-fund", directory, TimeSpan.FromMinutes(3));
        }
        catch (TimeoutException)
        {
            throw new InvalidOperationException($"npm ci in {directory} took more than 3 minutes.");
        }

        string tail = result.output[Math.Max(0, result.output.Length - 3000)..];
        if (result.exit == 0)
        {
            return File.Exists(Path.Combine(directory, "node_modules", package, "package.json"))
                ? null
                : throw new InvalidOperationException($"npm ci in {directory} succeeded but {package} is not installed:\n{tail}");
        }

        string? unreachable = InstallOutcome.UnreachableLine(result.output);
        return unreachable is not null
            ? $"the npm registry is unreachable, so {package} could not be installed: {unreachable}"
            : throw new InvalidOperationException($"npm ci failed ({result.exit}) in {directory}:\n{tail}");
    }
}
