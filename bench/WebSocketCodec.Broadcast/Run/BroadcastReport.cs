using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>The benchmark's page (markdown: the medians, the targets, every run) and its CSV (every run).</summary>
public static class BroadcastReport
{
    /// <summary>Writes <paramref name="prefix"/>.md and <paramref name="prefix"/>.csv.</summary>
    public static async Task WriteAsync(string prefix, IReadOnlyList<BroadcastMeasurement> results, BroadcastOptions options, string command, CancellationToken cancellationToken = default)
    {
        await File.WriteAllTextAsync(prefix + ".md", WebSocketCodec.Bench.ResultsStamp.Current(command).StampPage(ToMarkdown(results, options, command)), cancellationToken);
        await File.WriteAllTextAsync(prefix + ".csv", ToCsv(results), cancellationToken);
    }

    /// <summary>The page. <paramref name="note"/>, when given, follows the command line.</summary>
    public static string ToMarkdown(IReadOnlyList<BroadcastMeasurement> all, BroadcastOptions options, string command, string? note = null)
    {
        ArgumentNullException.ThrowIfNull(all);
        ArgumentNullException.ThrowIfNull(options);
        BroadcastMeasurement[] results = [.. all.Where(r => r.Stalled == 0)]; // the CPU comparison: no stalled members
        var page = new StringBuilder();
        void Line(FormattableString text) => page.AppendLine(text.ToString(CultureInfo.InvariantCulture));
        Line($"# Broadcast: one message to many websockets");
        Line($"");
        Line($"`{command}`");
        Line($"");
        if (note is not null)
        {
            Line($"{note}");
            Line($"");
        }

        Line($"{Environment.ProcessorCount} cores, {RuntimeInformation.OSDescription}, .NET {Environment.Version}; {options.Repeat} runs of each{(options.Once.Count > 0 ? $" ({string.Join(", ", options.Once)}: the first run only)" : "")}, variants interleaved{(options.Stalled.Any(k => k > 0) ? $", each without and with stalled websockets ({string.Join(", ", options.Stalled)}) in turn" : "")}; per run {options.WarmUp} warm-up and {options.Broadcasts} measured broadcasts.");
        Line($"");
        Line($"- Server: Kestrel on 127.0.0.1, HTTP/1.1, workstation GC, keep-alive Pings off; every websocket only reads. `group`: our endpoint (`MapWebSocket`), one `WebSocketGroup`, `group.Broadcast(Binary, payload)`. `sender-loop`: our endpoint, `foreach (c) await c.Sender.SendAsync(Binary, payload)`. `aspnet-loop`: `UseWebSockets` + `AcceptWebSocketAsync`, `foreach (ws) await ws.SendAsync(payload, Binary, true, ct)`. `group-fastpath` (when run): the group on our Kestrel fast path (`ListenOptions.UseWebSockets`: the connection's own pipes, no upgrade stream).");
        Line($"- Clients: one other process, raw sockets and a minimal frame reader. Payload: the server's `Stopwatch.GetTimestamp()` at the broadcast's start, its sequence number, zeros. Delivery time: the last websocket's receipt minus that stamp (CLOCK_MONOTONIC, one machine).");
        Line($"- Pacing: the next broadcast starts when every websocket has the previous one (one broadcast in flight).");
        Line($"- Server CPU per broadcast: the server process's CPU time (user + system, all threads) over the measured broadcasts / broadcasts; the user part beside it (the rest is the kernel: on loopback a send also runs the receiving socket's TCP input, so the kernel share is the same work for every variant). Allocated: `GC.GetTotalAllocatedBytes(true)` over the same window, per broadcast and per recipient (per broadcast / websockets).");
        Line($"");
        Line($"## Medians");
        Line($"");
        Line($"| websockets | payload | variant | server CPU µs/broadcast | × aspnet-loop | × sender-loop | of it user µs | user × aspnet-loop | B allocated/recipient | B allocated/broadcast | delivery p50 ms | delivery p99 ms | clean runs |");
        Line($"|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var cell in Cells(results))
        {
            double? aspnet = MedianOf(cell.Runs, BroadcastVariants.AspNetLoop, r => r.CpuUsPerBroadcast);
            double? sender = MedianOf(cell.Runs, BroadcastVariants.SenderLoop, r => r.CpuUsPerBroadcast);
            double? aspnetUser = MedianOf(cell.Runs, BroadcastVariants.AspNetLoop, r => r.UserCpuUsPerBroadcast);
            foreach (string variant in cell.Runs.Select(r => r.Variant).Distinct())
            {
                BroadcastMeasurement[] runs = [.. cell.Runs.Where(r => r.Variant == variant)];
                double cpu = Median(runs.Select(r => r.CpuUsPerBroadcast));
                double user = Median(runs.Select(r => r.UserCpuUsPerBroadcast));
                Line($"| {cell.WebSockets:N0} | {Size(cell.Payload)} | {variant} | {cpu:F0} | {Ratio(cpu, aspnet)} | {Ratio(cpu, sender)} | {user:F0} | {Ratio(user, aspnetUser)} | {Median(runs.Select(r => r.BytesPerRecipient)):F2} | {Median(runs.Select(r => r.BytesPerBroadcast)):F0} | {Median(runs.Select(r => r.DeliveryP50Ns / 1e6)):F2} | {Median(runs.Select(r => r.DeliveryP99Ns / 1e6)):F2} | {runs.Count(r => r.IsClean)}/{runs.Length} |");
            }
        }

        Line($"");
        Line($"## Targets (issue 24), on the medians");
        Line($"");
        foreach (var cell in Cells(results))
        {
            double? group = MedianOf(cell.Runs, BroadcastVariants.Group, r => r.CpuUsPerBroadcast);
            double? aspnet = MedianOf(cell.Runs, BroadcastVariants.AspNetLoop, r => r.CpuUsPerBroadcast);
            double? sender = MedianOf(cell.Runs, BroadcastVariants.SenderLoop, r => r.CpuUsPerBroadcast);
            double? bytes = MedianOf(cell.Runs, BroadcastVariants.Group, r => r.BytesPerRecipient);
            if (group is null)
            {
                continue;
            }

            string vsAspNet = aspnet is { } a ? $"{group / a:F2}× aspnet-loop (≤ 0.5: **{(group <= 0.5 * a ? "met" : "not met")}**)" : "aspnet-loop not run";
            string vsSender = sender is { } s ? $"{group / s:F2}× sender-loop (< 1: **{(group < s ? "met" : "not met")}**)" : "sender-loop not run";
            string allocation = $"{bytes:F2} B allocated per recipient (0, i.e. only per-broadcast constants, under 1 B: **{(bytes < 1 ? "met" : "not met")}**)";
            Line($"- {cell.WebSockets:N0} websockets, {Size(cell.Payload)}: group {vsAspNet}; {vsSender}; {allocation}.");
            if (aspnet is { } total && MedianOf(cell.Runs, BroadcastVariants.AspNetLoop, r => r.CpuUsPerBroadcast - r.UserCpuUsPerBroadcast) is { } kernel && total > 0)
            {
                Line($"  - aspnet-loop's kernel time alone ({kernel:F0} µs, nearly all of it the sends) is {kernel / total:F2}× its total: a variant that makes the same sends cannot go below that.");
            }
        }

        StalledReport.Append(page, all, options);
        Line($"");
        Line($"## Every run");
        Line($"");
        Line($"| run | websockets | payload | variant | CPU µs/broadcast | user µs | B/recipient | GCs 0/1/2 | p50 ms | p99 ms | max ms | received | failures | load |");
        Line($"|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---|---:|");
        foreach (BroadcastMeasurement r in all)
        {
            string failures = r.Failures;
            Line($"| {r.Run} | {r.WebSockets:N0} | {Size(r.PayloadBytes)} | {r.Label} | {r.CpuUsPerBroadcast:F0} | {r.UserCpuUsPerBroadcast:F0} | {r.BytesPerRecipient:F2} | {string.Join('/', r.Collections)} | {r.DeliveryP50Ns / 1e6:F2} | {r.DeliveryP99Ns / 1e6:F2} | {r.DeliveryMaxNs / 1e6:F2} | {r.Received:N0}/{r.Expected:N0} | {failures} | {r.LoadAverage:F2} |");
        }

        if (all.Any(r => !string.IsNullOrEmpty(r.AllocationTypes)))
        {
            Line($"");
            Line($"## What the servers allocated (sampled, about one sample per 100 KB)");
            Line($"");
            foreach (BroadcastMeasurement r in all.Where(r => !string.IsNullOrEmpty(r.AllocationTypes)))
            {
                Line($"- run {r.Run}, {r.WebSockets:N0} websockets, {Size(r.PayloadBytes)}, {r.Label}: {r.AllocationTypes}");
            }
        }

        return page.ToString();
    }

    public static string ToCsv(IReadOnlyList<BroadcastMeasurement> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var csv = new StringBuilder("run,websockets,payload_bytes,variant,broadcasts,cpu_us_per_broadcast,user_cpu_us_per_broadcast,allocated_bytes,bytes_per_broadcast,bytes_per_recipient,gen0,gen1,gen2,delivery_p50_ms,delivery_p99_ms,delivery_max_ms,received,expected,clean,load_average,stalled,held_after,skipped,stalled_members_end,stalled_not_filled\n");
        foreach (BroadcastMeasurement r in results)
        {
            csv.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"{r.Run},{r.WebSockets},{r.PayloadBytes},{r.Variant},{r.Broadcasts},{r.CpuUsPerBroadcast:F1},{r.UserCpuUsPerBroadcast:F1},{r.AllocatedBytes},{r.BytesPerBroadcast:F1},{r.BytesPerRecipient:F3},{r.Collections[0]},{r.Collections[1]},{r.Collections[2]},{r.DeliveryP50Ns / 1e6:F3},{r.DeliveryP99Ns / 1e6:F3},{r.DeliveryMaxNs / 1e6:F3},{r.Received},{r.Expected},{r.IsClean},{r.LoadAverage:F2},{r.Stalled},{r.HeldAfter},{r.Skipped},{r.StalledMembersAtEnd},{r.StalledNotFilled}"));
        }

        return csv.ToString();
    }

    /// <summary>Reads back the runs of a CSV written by <see cref="ToCsv"/> (to render the page again); a run that was
    /// not clean comes back as failed, without the reason (that is on the page it was first written to).</summary>
    public static IReadOnlyList<BroadcastMeasurement> FromCsv(string csv)
    {
        ArgumentNullException.ThrowIfNull(csv);
        string[] lines = csv.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        string[] header = lines[0].Split(',');
        var results = new List<BroadcastMeasurement>();
        foreach (string line in lines.Skip(1))
        {
            string[] cells = line.Split(',');
            string Cell(string name) => cells[Array.IndexOf(header, name)];
            double Number(string name) => double.Parse(Cell(name), CultureInfo.InvariantCulture);
            double Optional(string name) => Array.IndexOf(header, name) < 0 || Cell(name).Length == 0 ? 0 : Number(name); // columns added later
            int broadcasts = (int)Number("broadcasts");
            bool clean = bool.Parse(Cell("clean"));
            results.Add(new BroadcastMeasurement
            {
                Variant = Cell("variant"),
                Run = (int)Number("run"),
                WebSockets = (int)Number("websockets"),
                PayloadBytes = (int)Number("payload_bytes"),
                Broadcasts = broadcasts,
                CpuMs = Number("cpu_us_per_broadcast") * broadcasts / 1000,
                UserCpuMs = Number("user_cpu_us_per_broadcast") * broadcasts / 1000,
                AllocatedBytes = (long)Number("allocated_bytes"),
                Collections = [(int)Number("gen0"), (int)Number("gen1"), (int)Number("gen2")],
                DeliveryP50Ns = (long)(Number("delivery_p50_ms") * 1e6),
                DeliveryP99Ns = (long)(Number("delivery_p99_ms") * 1e6),
                DeliveryMaxNs = (long)(Number("delivery_max_ms") * 1e6),
                Received = (long)Number("received"),
                Expected = (long)Number("expected"),
                Failed = clean ? 0 : 1,
                FirstFailure = clean ? null : "(not clean: see the page first written)",
                LoadAverage = Number("load_average"),
                Stalled = (int)Optional("stalled"),
                HeldAfter = Array.IndexOf(header, "held_after") >= 0 && Cell("held_after").Length > 0 ? (int)Number("held_after") : null,
                Skipped = (long)Optional("skipped"),
                StalledMembersAtEnd = (int)Optional("stalled_members_end"),
                StalledNotFilled = (int)Optional("stalled_not_filled"),
            });
        }

        return results;
    }

    private static IEnumerable<(int WebSockets, int Payload, BroadcastMeasurement[] Runs)> Cells(IReadOnlyList<BroadcastMeasurement> results) =>
        results.GroupBy(r => (r.WebSockets, r.PayloadBytes)).OrderBy(g => g.Key.WebSockets).ThenBy(g => g.Key.PayloadBytes)
            .Select(g => (g.Key.WebSockets, g.Key.PayloadBytes, g.ToArray()));

    private static double? MedianOf(BroadcastMeasurement[] runs, string variant, Func<BroadcastMeasurement, double> value)
    {
        double[] values = [.. runs.Where(r => r.Variant == variant && r.Broadcasts > 0).Select(value)];
        return values.Length == 0 ? null : Median(values);
    }

    /// <summary>The median (the mean of the middle two for an even count); 0 for none.</summary>
    public static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? 0 : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }

    private static string Ratio(double value, double? against) => against is { } a && a > 0 ? (value / a).ToString("F2", CultureInfo.InvariantCulture) : "-";

    internal static string Size(int bytes) => bytes % 1024 == 0 ? $"{bytes / 1024} KiB" : $"{bytes} B";
}
