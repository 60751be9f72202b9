using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using WebSocketCodec.Bench;

namespace WebSocketCodec.Soak;

/// <summary>node's <c>ws</c> as the second client: <c>soak-client.mjs</c> runs the same traffic rules (its own seeded
/// generator) over several websockets and prints its counts as JSON. Installed with <c>npm ci</c> from the committed
/// lock file when missing.</summary>
public static class NodeSoakClient
{
    private static readonly JsonSerializerOptions Json = new() { IncludeFields = true, PropertyNameCaseInsensitive = true };

    /// <summary>Why the node client cannot run here (node or npm missing), or null.</summary>
    public static string? SkipReason() =>
        ChildProcess.Which("node") is null || ChildProcess.Which("npm") is null ? "node and npm are not on PATH: the node ws client did not run" : null;

    /// <summary>Runs <c>npm ci</c> in <paramref name="directory"/> unless ws is installed.</summary>
    public static Task EnsureInstalledAsync(string directory, CancellationToken cancellationToken) =>
        ChildProcess.EnsureNpmPackageAsync(directory, "ws", cancellationToken);

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
        var (exit, output, error) = await ChildProcess.RunAsync("node", arguments, directory, cancellationToken).ConfigureAwait(false);
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
}
