using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>The report of a RemotePingPong invocation: a markdown page (medians, min/max, ratio to the better DotNetty
/// TCP variant at each client count from the same invocation, stalls, warm-ups), and the raw runs as JSON (which
/// bench/charts renders) and CSV.</summary>
public static class PingPongReport
{
    private static readonly JsonSerializerOptions Json = new() { WriteIndented = true, Converters = { new JsonStringEnumConverter() } };

    /// <summary>Writes <paramref name="markdownPath"/> (stamped: commit, date, CPU, cores, runtime, OS, command) and,
    /// beside it, the same name with .json and .csv (the warm-up runs included, as repeat 0).</summary>
    public static async Task WriteAsync(string markdownPath, IReadOnlyList<PingPongMeasurement> results, PingPongOptions options, string command, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(markdownPath);
        string folder = Path.GetDirectoryName(Path.GetFullPath(markdownPath))!;
        Directory.CreateDirectory(folder);
        string stem = Path.Combine(folder, Path.GetFileNameWithoutExtension(markdownPath));
        string page = WebSocketCodec.Bench.ResultsStamp.Current(command).StampPage(ToMarkdown(results, options, command, Path.GetFileName(stem)));
        await File.WriteAllTextAsync(markdownPath, page, cancellationToken).ConfigureAwait(false);
        await File.WriteAllTextAsync(stem + ".json", ToJson(results), cancellationToken).ConfigureAwait(false);
        await File.WriteAllTextAsync(stem + ".csv", ToCsv(results), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>The raw runs as JSON (an array of <see cref="PingPongMeasurement"/>).</summary>
    public static string ToJson(IReadOnlyList<PingPongMeasurement> results) => JsonSerializer.Serialize(results, Json);

    /// <summary>Reads <see cref="ToJson"/> back.</summary>
    public static IReadOnlyList<PingPongMeasurement> FromJson(string json) => JsonSerializer.Deserialize<PingPongMeasurement[]>(json, Json) ?? [];

    /// <summary>The raw runs as CSV, one row per run.</summary>
    public static string ToCsv(IReadOnlyList<PingPongMeasurement> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var csv = new StringBuilder("variant,protocol,batching,clients,repeat,position,round_trips,status,elapsed_ms,msgs_per_s,refusals,detail\n");
        foreach (PingPongMeasurement r in results)
        {
            csv.Append(CultureInfo.InvariantCulture, $"{r.Variant},{r.Protocol},{(r.Batching is { } b ? b ? "on" : "off" : "")},{r.Clients},{r.Repeat},{r.Position},{r.RoundTrips},{r.Status},{r.ElapsedMs:F1},{r.MessagesPerSecond:F0},{r.Refusals},\"{r.Detail.Replace("\"", "'", StringComparison.Ordinal)}\"\n");
        }

        return csv.ToString();
    }

    /// <summary>The page: one table row per (client count, variant).</summary>
    public static string ToMarkdown(IReadOnlyList<PingPongMeasurement> results, PingPongOptions options, string command, string chartStem = "akka-pingpong")
    {
        ArgumentNullException.ThrowIfNull(options);
        IReadOnlyList<PingPongSummary> summaries = PingPongSummary.Of(results, options.Variants);
        var page = new StringBuilder();
        page.AppendLine("# RemotePingPong: Akka.Remote transports side by side");
        page.AppendLine();
        page.AppendLine(CultureInfo.InvariantCulture, $"`{command}`");
        page.AppendLine();
        page.AppendLine(CultureInfo.InvariantCulture, $"- Machine: {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}, Akka.NET {typeof(global::Akka.Actor.ActorSystem).Assembly.GetName().Version}, server GC {System.Runtime.GCSettings.IsServerGC}.");
        page.AppendLine(CultureInfo.InvariantCulture, $"- Two actor systems in one process over 127.0.0.1; per run a fresh pair; the first remote-deploys one echo actor per client into the second; each client does {options.RoundTrips:N0} round trips with {options.Window} in flight. msgs/s = clients × {options.RoundTrips * 2:N0} / elapsed.");
        page.AppendLine(CultureInfo.InvariantCulture, $"- {options.Repeat} repeats; in each, every client count, and for each the variants one after another, in an order that starts one variant further on each repeat (repeat 1: {string.Join(", ", options.Variants)}). Before every run a full, blocking, compacting collection (large object heap included) and the finalizers it queued, in this process (the only one: no child processes). Medians over the runs that completed; a run that timed out (setup {options.SetupTimeout.TotalSeconds:N0} s, round trips {options.RunTimeout.TotalSeconds:N0} s) is a stall and no result.");
        page.AppendLine("- × baseline: the variant's median over the baseline's median at the same client count, same invocation. The baseline is the better of DotNetty TCP with Akka's default batching (`dotnetty`: batching.enabled = true, max-pending-writes = 30) and with `akka.remote.dot-netty.tcp.batching.enabled = false` (`dotnetty-nobatch`), chosen per client count (table below); `batching` in the raw runs is the setting as the run's actor system read it.");
        page.AppendLine("- refusals: our transport's `Write` calls that returned false (above the outbound high water mark; Akka then buffers and retries), summed over the runs, read from the library's meter (websocketcodec.akka.writes.refused); – where not observed (the other transports).");
        page.AppendLine();
        page.AppendLine("| clients | variant | median msgs/s | min | max | × baseline | runs | stalled | failed | refusals |");
        page.AppendLine("|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|");
        foreach (PingPongSummary s in summaries)
        {
            PingPongSummary? baseline = PingPongSummary.BaselineOf(summaries, s.Clients);
            string ratio = baseline is not null && s.Completed > 0 ? (s.Median / baseline.Median).ToString("F2", CultureInfo.InvariantCulture) : "–";
            page.AppendLine(CultureInfo.InvariantCulture, $"| {s.Clients} | {s.Variant} | {Rate(s.Median)} | {Rate(s.Min)} | {Rate(s.Max)} | {ratio} | {s.Completed} | {s.Stalled} | {s.Failed} | {(s.Refusals is { } refused ? refused.ToString("N0", CultureInfo.InvariantCulture) : "–")} |");
        }

        page.AppendLine();
        page.AppendLine("The baseline per client count (the better DotNetty TCP median):");
        page.AppendLine();
        page.AppendLine("| clients | dotnetty (batching) | dotnetty-nobatch | baseline |");
        page.AppendLine("|--:|--:|--:|---|");
        foreach (int clients in summaries.Select(s => s.Clients).Distinct())
        {
            string Median(string variant) => summaries.FirstOrDefault(s => s.Clients == clients && s.Variant == variant) is { Completed: > 0 } found ? Rate(found.Median) : "–";
            page.AppendLine(CultureInfo.InvariantCulture, $"| {clients} | {Median(PingPongVariants.DotNetty)} | {Median(PingPongVariants.DotNettyNoBatching)} | {PingPongSummary.BaselineOf(summaries, clients)?.Variant ?? "none (neither ran)"} |");
        }

        PingPongMeasurement[] warmUps = [.. results.Where(r => r.Repeat == 0)];
        if (warmUps.Length > 0)
        {
            page.AppendLine();
            page.AppendLine(CultureInfo.InvariantCulture, $"Warm-up runs (1 client, {warmUps[0].RoundTrips:N0} round trips each, before repeat 1; in the raw runs as repeat 0, in no median):");
            page.AppendLine();
            foreach (PingPongMeasurement r in warmUps)
            {
                page.AppendLine(CultureInfo.InvariantCulture, $"- {r.Variant}: {(r.Status == RunStatus.Ok ? $"{Rate(r.MessagesPerSecond)} msgs/s" : $"{r.Status}, {r.Detail}")}");
            }
        }

        PingPongMeasurement[] troubled = [.. results.Where(r => r.Status != RunStatus.Ok)];
        if (troubled.Length > 0)
        {
            page.AppendLine();
            page.AppendLine("Runs that stalled or failed:");
            page.AppendLine();
            foreach (PingPongMeasurement r in troubled)
            {
                page.AppendLine(CultureInfo.InvariantCulture, $"- {r.Variant}, {r.Clients} clients, {(r.Repeat == 0 ? "warm-up" : $"repeat {r.Repeat}")}: {r.Status}, {r.Detail}");
            }
        }

        page.AppendLine();
        page.AppendLine(CultureInfo.InvariantCulture, $"![median msgs/s by client count and variant; the whiskers span min to max]({chartStem}-throughput.svg)");
        page.AppendLine();
        page.AppendLine(CultureInfo.InvariantCulture, $"Raw runs: [{chartStem}.json]({chartStem}.json), [{chartStem}.csv]({chartStem}.csv). Chart: `cd bench/charts && npm ci && node pingpong.mjs ../results`.");
        return page.ToString();
    }

    private static string Rate(double value) => double.IsNaN(value) ? "–" : value.ToString("N0", CultureInfo.InvariantCulture);
}
