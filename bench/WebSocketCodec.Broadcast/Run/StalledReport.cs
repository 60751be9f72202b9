using System.Globalization;
using System.Text;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>The page's section on websockets that stop reading (issue 24: "a member that stops reading never delays
/// the others' delivery beyond noise"): each variant's delivery to the reading websockets without and with stalled
/// members side by side, on the medians of the runs.</summary>
internal static class StalledReport
{
    public static void Append(StringBuilder page, IReadOnlyList<BroadcastMeasurement> results, BroadcastOptions options)
    {
        if (!results.Any(r => r.Stalled > 0))
        {
            return;
        }

        void Line(FormattableString text) => page.AppendLine(text.ToString(CultureInfo.InvariantCulture));
        Line($"");
        Line($"## A member that stops reading");
        Line($"");
        Line($"- Stalled websockets: raw sockets of the client process with a 4 KiB receive buffer (set before connect), upgraded at `/?stalled`, the 101 read, then never read again. They join the same group (or member list) as the reading ones; delivery and pacing are measured over the reading websockets only.");
        Line($"- Before a stalled websocket joins, the server fills it until it is not writable: our endpoint `while (connection.IsWritable) {{ connection.Sender.TrySend(Binary, 64 KiB); await Task.Delay(5); }}`, aspnet-loop 64 KiB `SendAsync`s until one has not completed within 200 ms (it stays pending). Otherwise the kernel's loopback buffers and Kestrel's output buffer would absorb hundreds of broadcasts before the member behaved as stalled; filled, it is above its high water mark from the first broadcast on (the group's skip count shows it: stalled × broadcasts).");
        Line($"- The group's slow-member policy: `SlowMemberPolicy.Skip` (a stalled member stays a member and misses the broadcasts); the websockets' `SlowConsumerTimeout` stays at its default, 30 s, longer than a run, so none is closed during it (checked: every run counts its stalled members still in the group at the end).");
        Line($"- A loop awaits each member's send, so a stalled member holds it: the server bounds each broadcast at {options.HoldBound.TotalSeconds:F0} s and then reports the run as held (\"after N broadcasts\": the broadcasts that returned before the held one). A loop visits its members in join order and the stalled ones join last, so the reading websockets may all get the held broadcast before the loop reaches a stalled member; the next broadcast never starts. A stalled member that joined earlier would also keep that broadcast from every member after it.");
        Line($"- Noise: the spread (min to max) of the run medians without stalled members; a variant meets the target when its median with stalled members is within that spread or below it.");
        Line($"");
        Line($"| websockets | payload | variant | stalled | delivery p50 ms, none | p50 ms, stalled | p50 × (stalled/none) | p99 ms, none | p99 ms, stalled | p99 × | none's p50 spread ms | skipped per broadcast | runs (clean/held/all) | within noise |");
        Line($"|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|");
        foreach (var cell in results.GroupBy(r => (r.WebSockets, r.PayloadBytes, r.Variant)).OrderBy(g => g.Key.WebSockets).ThenBy(g => g.Key.PayloadBytes))
        {
            BroadcastMeasurement[] none = [.. cell.Where(r => r.Stalled == 0 && r.IsClean)];
            foreach (var stalled in cell.Where(r => r.Stalled > 0).GroupBy(r => r.Stalled).OrderBy(g => g.Key))
            {
                BroadcastMeasurement[] runs = [.. stalled];
                BroadcastMeasurement[] clean = [.. runs.Where(r => r.IsClean)];
                string counts = $"{clean.Length}/{runs.Count(r => r.IsHeld)}/{runs.Length}";
                string size = BroadcastReport.Size(cell.Key.PayloadBytes);
                double p50None = BroadcastReport.Median(none.Select(r => r.DeliveryP50Ns / 1e6));
                double p99None = BroadcastReport.Median(none.Select(r => r.DeliveryP99Ns / 1e6));
                string noneP50 = none.Length == 0 ? "-" : $"{p50None:F2}";
                string noneP99 = none.Length == 0 ? "-" : $"{p99None:F2}";
                string spread = none.Length == 0 ? "-" : string.Create(CultureInfo.InvariantCulture, $"{none.Min(r => r.DeliveryP50Ns) / 1e6:F2}-{none.Max(r => r.DeliveryP50Ns) / 1e6:F2}");
                if (clean.Length == 0)
                {
                    string why = runs.FirstOrDefault(r => r.IsHeld) is { } held ? $"**held** after {held.HeldAfter} broadcasts" : "failed";
                    Line($"| {cell.Key.WebSockets:N0} | {size} | {cell.Key.Variant} | {stalled.Key} | {noneP50} | {why} | - | {noneP99} | - | - | {spread} | - | {counts} | **no** |");
                    continue;
                }

                double p50 = BroadcastReport.Median(clean.Select(r => r.DeliveryP50Ns / 1e6));
                double p99 = BroadcastReport.Median(clean.Select(r => r.DeliveryP99Ns / 1e6));
                double skipped = BroadcastReport.Median(clean.Select(r => r.Broadcasts == 0 ? 0 : (double)r.Skipped / r.Broadcasts));
                string within = none.Length == 0 ? "-" : p50 <= none.Max(r => r.DeliveryP50Ns) / 1e6 ? "**yes**" : "**no**";
                Line($"| {cell.Key.WebSockets:N0} | {size} | {cell.Key.Variant} | {stalled.Key} | {noneP50} | {p50:F2} | {Ratio(p50, p50None, none.Length)} | {noneP99} | {p99:F2} | {Ratio(p99, p99None, none.Length)} | {spread} | {skipped:F1} | {counts} | {within} |");
            }
        }

        double load = results.Max(r => r.LoadAverage);
        Line($"");
        Line($"Load average (1 min) at the ends of the runs: {results.Min(r => r.LoadAverage):F2}-{load:F2}{(load > 4 ? " — above 4: the tool's own server and clients count in it, and so would other work on the machine; the ratios compare runs interleaved under the same load" : "")}.");
    }

    private static string Ratio(double value, double against, int runs) =>
        runs == 0 || against <= 0 ? "-" : (value / against).ToString("F2", CultureInfo.InvariantCulture);
}
