using System.Diagnostics;

namespace WebSocketCodec.Bench;

/// <summary>The bench tools' helper programs (npm, node, gcc): found on PATH, run to the end with their output
/// captured, killed with their children when cancelled; npm packages installed from a folder's committed lock file.</summary>
internal static class ChildProcess
{
    /// <summary>The full path of <paramref name="name"/> on PATH, or null.</summary>
    public static string? Which(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Select(directory => Path.Combine(directory, name)).FirstOrDefault(File.Exists);

    /// <summary>Runs <paramref name="file"/> in <paramref name="directory"/> until it exits; when
    /// <paramref name="cancellationToken"/> fires first, kills it and its children and returns what it wrote.</summary>
    /// <returns>Its exit code (-1 or the signal's when killed), standard output and standard error.</returns>
    public static async Task<(int Exit, string Output, string Error)> RunAsync(
        string file, IEnumerable<string> arguments, string directory, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(file)
        {
            WorkingDirectory = directory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        Task<string> error = process.StandardError.ReadToEndAsync(CancellationToken.None);
        try
        {
            await process.WaitForExitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync(CancellationToken.None).ConfigureAwait(false);
        }

        return (process.ExitCode, await output.ConfigureAwait(false), await error.ConfigureAwait(false));
    }

    /// <summary>Runs <c>npm ci</c> in <paramref name="directory"/> (its committed lock file) unless
    /// <paramref name="package"/> is installed there already.</summary>
    /// <exception cref="InvalidOperationException">npm failed, or did not install the package; npm's output says why.</exception>
    public static async Task EnsureNpmPackageAsync(string directory, string package, CancellationToken cancellationToken)
    {
        string installed = Path.Combine(directory, "node_modules", package, "package.json");
        if (File.Exists(installed))
        {
            return;
        }

        var (exit, output, error) = await RunAsync("npm", ["ci", "--no-audit", "--no-fund"], directory, cancellationToken).ConfigureAwait(false);
        cancellationToken.ThrowIfCancellationRequested();
        if (exit != 0 || !File.Exists(installed))
        {
            string log = output + error;
            throw new InvalidOperationException($"npm ci in {directory} {(exit != 0 ? $"failed ({exit})" : $"did not install {package}")}:\n{log[Math.Max(0, log.Length - 3000)..]}");
        }
    }
}
