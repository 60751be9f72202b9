using System.Diagnostics;
using System.Globalization;
using System.Text.Json;

namespace WebSocketCodec.Soak;

/// <summary>node's <c>ws</c> as the second client: <c>soak-client.mjs</c> runs the same traffic rules (its own seeded
/// generator) over several websockets and prints its counts as JSON. Installed with <c>npm ci</c> from the committed
/// lock file when missing.</summary>
public static class NodeSoakClient
{
    private static readonly JsonSerializerOptions Json = new() { IncludeFields = true, PropertyNameCaseInsensitive = true };

    /// <summary>Why the node client cannot run here (node or npm missing), or null.</summary>
    public static string? SkipReason() =>
        Which("node") is null || Which("npm") is null ? "node and npm are not on PATH: the node ws client did not run" : null;

    /// <summary>Runs <c>npm ci</c> in <paramref name="directory"/> unless ws is installed.</summary>
    public static async Task EnsureInstalledAsync(string directory, CancellationToken cancellationToken)
    {
        if (File.Exists(Path.Combine(directory, "node_modules", "ws", "package.json")))
        {
            return;
        }

        var (exit, output, error) = await RunAsync("npm", ["ci", "--no-audit", "--no-fund"], directory, cancellationToken).ConfigureAwait(false);
        if (exit != 0)
        {
            throw new InvalidOperationException($"npm ci failed ({exit}) in {directory}:\n{output}{error}");
        }
    }

    /// <summary>Runs <paramref name="connections"/> websockets of node's ws against <paramref name="url"/>, each with
    /// <paramref name="framesPerConnection"/> frames planned, numbered from <paramref name="firstConnection"/>; with
    /// <paramref name="deflate"/>, offering permessage-deflate in the variants of <see cref="SoakDeflate"/> (and failing
    /// without it).</summary>
    public static async Task<SoakCounts> RunAsync(
        string directory, Uri url, int connections, long framesPerConnection, SoakOptions options, long segment, int firstConnection, bool deflate, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(url);
        ArgumentNullException.ThrowIfNull(options);
        string[] arguments =
        [
            "soak-client.mjs", "--url", url.ToString(), "--connections", Text(connections), "--frames", Text(framesPerConnection),
            "--seed", options.Seed.ToString(CultureInfo.InvariantCulture), "--segment", Text(segment), "--first", Text(firstConnection),
            "--window", Text(options.Window), "--boundary-every", Text(options.BoundaryEvery), "--deflate", deflate ? "1" : "0",
            "--first-variant", Text(SoakDeflate.Variant(SoakOptions.NodeDeflate, segment, 0)), "--small-window-bits", Text(SoakDeflate.SmallWindowBits),
        ];
        var (exit, output, error) = await RunAsync("node", arguments, directory, cancellationToken).ConfigureAwait(false);
        string? last = output.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).LastOrDefault();
        SoakCounts? counts = null;
        try
        {
            counts = last is null ? null : JsonSerializer.Deserialize<SoakCounts>(last, Json);
        }
        catch (JsonException)
        {
        }

        counts ??= new SoakCounts();
        if (last is null || !last.StartsWith('{') || (exit != 0 && counts.Failures == 0))
        {
            counts.Fail($"node soak-client.mjs ({url.Scheme}) exited with {exit}: {error.Trim()} {last}");
        }

        return counts;
    }

    private static string Text(long value) => value.ToString(CultureInfo.InvariantCulture);

    private static async Task<(int Exit, string Output, string Error)> RunAsync(string file, string[] arguments, string directory, CancellationToken cancellationToken)
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

    private static string? Which(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Select(dir => Path.Combine(dir, name)).FirstOrDefault(File.Exists);
}
