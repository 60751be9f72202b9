using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Scale;

/// <summary>The results as a markdown page: one row per run, then the issue's memory targets checked on the median
/// KiB per websocket of each (variant, GC mode).</summary>
public static class ScaleReport
{
    /// <summary>The endpoint path may hold at most this much more per websocket than <c>raw-upgrade</c>.</summary>
    public const double EndpointOverRawKiB = 2;

    /// <summary>... and at most this much in all.</summary>
    public const double EndpointMaxKiB = 16;

    /// <summary>The fast path's limit.</summary>
    public const double FastPathMaxKiB = 6;

    /// <summary>Issue 40: the lean transport's RSS per websocket at most this (KiB).</summary>
    public const double LeanMaxKiB = 2;

    /// <summary>Issue 40: the lean transport's server CPU for the run at most this many times Bun's.</summary>
    public const double LeanCpuOverBun = 1.2;

    /// <summary>Issue 40: the round trip p99 during the hold at most this (ms).</summary>
    public const double LeanMaxP99Ms = 5;

    /// <summary>The page; with <paramref name="before"/> (an earlier run's results, e.g. before a change) it also
    /// compares the medians per variant and GC mode.</summary>
    public static string ToMarkdown(IReadOnlyList<ScaleResult> results, ScaleOptions options, string command, IReadOnlyList<ScaleResult>? before = null)
    {
        ArgumentNullException.ThrowIfNull(results);
        ArgumentNullException.ThrowIfNull(options);
        var page = new StringBuilder();
        void Line(FormattableString text) => page.AppendLine(text.ToString(CultureInfo.InvariantCulture));
        Line($"# Idle websockets at scale: {options.WebSockets:N0} websockets, one server process");
        page.AppendLine();
        Line($"`{command}`");
        page.AppendLine();
        Line($"{DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC; {Environment.ProcessorCount} cores, {RuntimeInformation.OSDescription}, .NET {Environment.Version}. The machine is shared with other jobs: times are noisy (the load column is the machine's 1-minute load average at the end of the hold, on 2 cores); the memory is not.");
        page.AppendLine();
        Line($"Each websocket is opened by our client's HTTP/1.1 handshake from {(results.Count > 0 ? results[0].SourceAddresses : 0)} source addresses in 127.0.0.0/8 and {options.ClientProcesses} client processes (handshakes {options.Concurrency} at a time per process), then held {options.Hold.TotalSeconds:0.#} s sending a batch of 5-10 binary messages of 200-500 B every {options.MinInterval.TotalSeconds:0.#}-{options.MaxInterval.TotalSeconds:0.#} s (the first at a random point of the first interval); every echo's round trip is timed. The server's memory is taken after a forced, blocking, compacting full collection (large object heap compacted, finalizers run, collected again): after a warm-up (baseline: 4 rounds of 64 websockets, each echoing 3 batches and closed, then, for a .NET server, until its JIT has compiled nothing for half a second, so the tier-ups of the paths under test are done before the baseline, as in a server that has run a while), with every websocket open after the hold (open), and after every websocket closed with a Close exchange (closed). KiB per websocket = (RSS open - RSS baseline) / open websockets; heap = the managed heap (`GC.GetTotalMemory`) the same way. GC {(options.GcConcurrent ? "concurrent (background), as ASP.NET Core's default" : "non-concurrent")}; `raw-upgrade` is a byte echo behind Kestrel's upgrade stream that waits with zero-byte reads and rents its buffer per read; `aspnetcore` is the echo server sample's `--codec builtin` (a 64 KiB receive buffer per websocket); `bun` is Bun 1.4.4's websocket echo (uWebSockets; its heap is JavaScript's, after `Bun.gc(true)`). Server CPU s is the server process's CPU time from the baseline to the last close, less the memory measurement's own forced collection; JIT is the number of methods a .NET server compiled from the baseline to the open measurement.{(options.ServerEnvironment.Count > 0 ? " The .NET servers ran with " + string.Join(", ", options.ServerEnvironment.Select(e => $"`{e.Key}={e.Value}`")) + "." : "")}");
        page.AppendLine();
        page.AppendLine("| run | variant | GC | open | failures | handshake p50 / p99 ms | round trip p50 / p99 / max ms | echoes / sent | load | server CPU s | JIT | RSS MiB baseline / open / closed | **KiB per websocket** | heap KiB per websocket |");
        page.AppendLine("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (ScaleResult r in results)
        {
            Line($"| {r.Run} | {r.Variant} | {r.Gc} ({r.GcHeaps} heap{(r.GcHeaps == 1 ? "" : "s")}) | {r.Open:N0} | {r.FailureCount} | {r.HandshakeP50Ms:F1} / {r.HandshakeP99Ms:F1} | {r.RoundTripP50Ms:F2} / {r.RoundTripP99Ms:F1} / {r.RoundTripMaxMs:F0} | {r.Received:N0} / {r.Sent:N0} | {r.LoadAverage:F1} | {r.ServerCpuSeconds:F1} | {(r.JitMethods is { } jit ? jit.ToString(CultureInfo.InvariantCulture) : "-")} | {r.RssBaseline / 1048576.0:F0} / {r.RssOpen / 1048576.0:F0} / {r.RssClosed / 1048576.0:F0} | **{r.RssKiBPerWebSocket:F1}** | {r.HeapKiBPerWebSocket:F1} |");
        }

        page.AppendLine();
        page.AppendLine("## Targets (medians over the runs)");
        page.AppendLine();
        foreach (string gc in results.Select(r => r.Gc).Distinct())
        {
            double? raw = Median(results, Variants.RawUpgrade, gc, r => r.RssKiBPerWebSocket);
            foreach (string endpoint in new[] { Variants.OursEndpointMessages, Variants.OursEndpoint })
            {
                if (Median(results, endpoint, gc, r => r.RssKiBPerWebSocket) is { } kib)
                {
                    string rawPart = raw is { } r ? string.Create(CultureInfo.InvariantCulture, $"raw-upgrade {r:F1} + {EndpointOverRawKiB} = {r + EndpointOverRawKiB:F1}") : "raw-upgrade not measured";
                    bool met = kib <= EndpointMaxKiB && raw is not null && kib <= raw + EndpointOverRawKiB;
                    Line($"- {gc} GC, endpoint path ({endpoint}): {kib:F1} KiB; target <= {rawPart} and <= {EndpointMaxKiB} KiB: **{(met ? "met" : "not met")}**");
                }
            }

            if (Median(results, Variants.Ours, gc, r => r.RssKiBPerWebSocket) is { } fast)
            {
                Line($"- {gc} GC, fast path (ours): {fast:F1} KiB; target <= {FastPathMaxKiB} KiB: **{(fast <= FastPathMaxKiB ? "met" : "not met")}**");
            }
        }

        // Issue 40's targets for the lean transport against Bun: memory, CPU and round trip at 19,000 websockets.
        double? bunCpu = results.Where(r => r.Variant == Variants.Bun).Select(r => r.Gc).Distinct().FirstOrDefault() is { } bunGc
            ? Median(results, Variants.Bun, bunGc, r => r.ServerCpuSeconds) : null;
        foreach ((string variant, string gc) in results.Where(r => r.Variant is Variants.Lean or Variants.LeanMessages).Select(r => (r.Variant, r.Gc)).Distinct())
        {
            double kib = Median(results, variant, gc, r => r.RssKiBPerWebSocket)!.Value;
            double cpu = Median(results, variant, gc, r => r.ServerCpuSeconds)!.Value;
            double p99 = Median(results, variant, gc, r => r.RoundTripP99Ms)!.Value;
            string cpuPart = bunCpu is { } b
                ? string.Create(CultureInfo.InvariantCulture, $"CPU {cpu:F1} s = {cpu / b:F2}x Bun's {b:F1} s, target <= {LeanCpuOverBun}x: **{(cpu <= b * LeanCpuOverBun ? "met" : "not met")}**")
                : "CPU: Bun not measured";
            Line($"- {variant}, {gc} GC: {kib:F2} KiB per websocket, target <= {LeanMaxKiB} KiB: **{(kib <= LeanMaxKiB ? "met" : "not met")}**; {cpuPart}; round trip p99 {p99:F1} ms, target <= {LeanMaxP99Ms} ms: **{(p99 <= LeanMaxP99Ms ? "met" : "not met")}**");
        }

        if (before is { Count: > 0 })
        {
            page.AppendLine();
            page.AppendLine("## Against the earlier run (medians)");
            page.AppendLine();
            page.AppendLine("| variant | GC | KiB per websocket before | now | heap KiB per websocket before | now |");
            page.AppendLine("|---|---|---:|---:|---:|---:|");
            foreach ((string variant, string gc) in results.Select(r => (r.Variant, r.Gc)).Distinct())
            {
                string Then(Func<ScaleResult, double> value) =>
                    Median(before, variant, gc, value) is { } v ? v.ToString("F1", CultureInfo.InvariantCulture) : "-";
                Line($"| {variant} | {gc} | {Then(r => r.RssKiBPerWebSocket)} | {Median(results, variant, gc, r => r.RssKiBPerWebSocket):F1} | {Then(r => r.HeapKiBPerWebSocket)} | {Median(results, variant, gc, r => r.HeapKiBPerWebSocket):F1} |");
            }
        }

        foreach (ScaleResult r in results.Where(r => r.HeapGrowth.Count > 0))
        {
            page.AppendLine();
            Line($"## Managed heap per websocket by type: {r.Variant}, {r.Gc} GC, run {r.Run}");
            page.AppendLine();
            page.AppendLine("| type | bytes per websocket | objects per websocket |");
            page.AppendLine("|---|---:|---:|");
            foreach (HeapTypeGrowth growth in r.HeapGrowth)
            {
                Line($"| `{growth.Type}` | {growth.BytesPerWebSocket:F0} | {growth.ObjectsPerWebSocket:F2} |");
            }
        }

        var failures = results.SelectMany(r => r.Failures.Select(f => (r.Run, r.Variant, r.Gc, f.Key, f.Value))).ToList();
        page.AppendLine();
        page.AppendLine("## Failures by reason");
        page.AppendLine();
        if (failures.Count == 0)
        {
            page.AppendLine("None: every websocket opened, every echo came back, every Close exchange completed.");
        }

        foreach ((int run, string variant, string gc, string reason, int count) in failures)
        {
            Line($"- run {run}, {variant}, {gc} GC: {reason} x{count}");
        }

        return page.ToString();
    }

    /// <summary>The median of <paramref name="value"/> over the runs of one variant and GC mode (the mean of the middle
    /// two for an even count); null when there is none.</summary>
    private static double? Median(IEnumerable<ScaleResult> results, string variant, string gc, Func<ScaleResult, double> value)
    {
        double[] values = [.. results.Where(r => r.Gc == gc && r.Variant == variant).Select(value).Order()];
        return values.Length == 0 ? null : values.Length % 2 == 1 ? values[values.Length / 2] : (values[(values.Length / 2) - 1] + values[values.Length / 2]) / 2;
    }
}
