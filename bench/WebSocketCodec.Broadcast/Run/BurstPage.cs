using System.Globalization;
using System.Text;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>The burst mode's page (markdown: the target, the medians, every run) and its CSV (every run).</summary>
public static class BurstPage
{
    /// <summary>Writes <paramref name="prefix"/>.md and <paramref name="prefix"/>.csv.</summary>
    public static async Task WriteAsync(
        string prefix, IReadOnlyList<BurstMeasurement> results, BroadcastOptions options, string command, string machine, CancellationToken cancellationToken = default)
    {
        await File.WriteAllTextAsync(prefix + ".md", WebSocketCodec.Bench.ResultsStamp.Current(command).StampPage(ToMarkdown(results, options, command, machine)), cancellationToken);
        await File.WriteAllTextAsync(prefix + ".csv", ToCsv(results), cancellationToken);
    }

    public static string ToMarkdown(IReadOnlyList<BurstMeasurement> results, BroadcastOptions options, string command, string machine)
    {
        ArgumentNullException.ThrowIfNull(results);
        ArgumentNullException.ThrowIfNull(options);
        WebSocketSessionOptions session = WebSocketSessionOptions.Default;
        var page = new StringBuilder();
        void Line(FormattableString text) => page.AppendLine(text.ToString(CultureInfo.InvariantCulture));
        Line($"# Broadcast burst: every member publishes at once, the server relays to all");
        Line($"");
        Line($"`{command}`");
        Line($"");
        Line($"{machine}; {options.Repeat} runs of each, variants interleaved; per run a warm-up burst of {options.BurstWarmUp} message(s) each (checked, not timed), then the measured burst of {options.Burst} each.");
        Line($"");
        Line($"- Server: Kestrel on 127.0.0.1, HTTP/1.1, workstation GC, keep-alive Pings off. Every websocket is a member of one `WebSocketGroup(SlowMemberPolicy.Close)` and every whole message a member sends is relayed from its read loop with `group.Broadcast(opcode, payload)` to the whole group, the sender included (a chat). The session's other options are the library's defaults: high/low water marks {Size(session.OutboundHighWaterMark)}/{Size(session.OutboundLowWaterMark)}, `OutboundHardLimit` {(session.OutboundHardLimit == 0 ? "none" : Size(session.OutboundHardLimit))} per member, the process's `BroadcastBudget` for the queued group messages of all members together (a message counted once; a quarter of the memory the GC may use, {BroadcastBudget.Shared.Limit / (1024.0 * 1024 * 1024):F1} GiB on this machine), `SlowConsumerTimeout` {session.SlowConsumerTimeout.TotalSeconds:F0} s without progress. `group`: our endpoint (`MapWebSocket`); `group-fastpath`: the same on our Kestrel fast path (`ListenOptions.UseWebSockets`). The loop variants (`sender-loop`, `aspnet-loop`) have no burst mode: a relay made of awaited sends would hold each sender's read loop, another question than the group's slow-member rule.");
        Line($"- Clients: one other process, raw sockets and a minimal frame reader. On the driver's command every websocket sends its messages, masked (a random key each), in one write, one websocket after the other from one thread. Payload: the sender's `Stopwatch.GetTimestamp()` taken just before its write (CLOCK_MONOTONIC, comparable across the two processes), its sequence number, its index, zeros. Every websocket checks that it gets every sender's messages, each sender's in order.");
        Line($"- Delivery latency: per receipt (websockets × websockets × messages of them), the receipt time (when the read that carried it returned) minus the sender's stamp. Time to all: from the first write of the burst until the last websocket had every message; member complete: the median websocket's time until it had all. Relays done: when the server's last `group.Broadcast` of the burst returned (its `Stopwatch`, same clock), i.e. every message was in every member's output or queue and only sending was left (with the share of all receipts that had arrived by then); arrivals 10/50/90%: when that share of all receipts had arrived (how evenly the output reached the websockets). CPU: each process's user + system time over the measured burst.");
        Line($"- Healthy members: every websocket reads all the time; none should be closed (issue 37: a burst that healthy readers drain must not close them).");
        Line($"");
        Line($"## Target (issue 37), over every run");
        Line($"");
        foreach (var cell in Cells(results))
        {
            int closed = cell.Runs.Sum(r => Math.Max(r.Closed, (int)r.ServerClosed));
            int complete = cell.Runs.Count(r => r.Complete == r.WebSockets && !r.TimedOut);
            Line($"- {cell.WebSockets:N0} websockets × {cell.Messages} messages × {Size(cell.Payload)}, {cell.Variant}: **{closed}** healthy members closed in {cell.Runs.Length} runs (0: **{(closed == 0 ? "met" : "not met")}**); every member had every message in {complete}/{cell.Runs.Length} runs; delivery p50/p99 (medians of the runs) {Median(cell.Runs.Select(r => r.LatencyP50Ns / 1e6)):F1}/{Median(cell.Runs.Select(r => r.LatencyP99Ns / 1e6)):F1} ms.");
        }

        Line($"");
        Line($"## Medians of the runs");
        Line($"");
        Line($"| websockets | messages each | payload | variant | complete members (fewest) | closed (all runs) | out of order (all runs) | latency p50 ms | p99 ms | max ms | member complete p50 ms | time to all ms | relays done ms (arrived by then) | arrivals 10/50/90% ms | send loop ms | server CPU ms | server B allocated/delivery | client CPU ms | clean runs |");
        Line($"|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|");
        foreach (var cell in Cells(results))
        {
            BurstMeasurement[] runs = cell.Runs;
            Line($"| {cell.WebSockets:N0} | {cell.Messages} | {Size(cell.Payload)} | {cell.Variant} | {runs.Min(r => r.Complete):N0} | {runs.Sum(r => r.Closed)} | {runs.Sum(r => r.OutOfOrder)} | {Median(runs.Select(r => r.LatencyP50Ns / 1e6)):F1} | {Median(runs.Select(r => r.LatencyP99Ns / 1e6)):F1} | {Median(runs.Select(r => r.LatencyMaxNs / 1e6)):F1} | {Median(runs.Select(r => r.MemberCompleteP50Ns / 1e6)):F0} | {Median(runs.Select(r => r.TimeToAllNs / 1e6)):F0} | {Median(runs.Select(r => r.RelaysDoneNs / 1e6)):F0} ({Median(runs.Select(r => r.ArrivedByRelaysDone * 100)):F0}%) | {Median(runs.Select(r => r.ArrivalP10Ns / 1e6)):F0}/{Median(runs.Select(r => r.ArrivalP50Ns / 1e6)):F0}/{Median(runs.Select(r => r.ArrivalP90Ns / 1e6)):F0} | {Median(runs.Select(r => r.SendNs / 1e6)):F0} | {Median(runs.Select(r => r.ServerCpuMs)):F0} | {Median(runs.Select(r => r.ExpectedReceipts == 0 ? 0 : (double)r.ServerAllocatedBytes / r.ExpectedReceipts)):F1} | {Median(runs.Select(r => r.ClientCpuMs)):F0} | {runs.Count(r => r.IsClean)}/{runs.Length} |");
        }

        Line($"");
        Line($"## Every run");
        Line($"");
        Line($"| run | websockets | messages | payload | variant | complete | closed (codes) | ended | out of order | receipts | p50 ms | p99 ms | max ms | member complete p50 ms | time to all ms | relays done ms (arrived) | arrivals 10/50/90% ms | server CPU ms (user) | client CPU ms | server GCs 0/1/2 | failures | load |");
        Line($"|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|---|---:|");
        foreach (BurstMeasurement r in results)
        {
            Line($"| {r.Run} | {r.WebSockets:N0} | {r.Messages} | {Size(r.PayloadBytes)} | {r.Variant} | {r.Complete:N0} | {r.Closed}{(r.CloseCodes.Length > 0 ? $" ({r.CloseCodes})" : "")} | {r.Ended} | {r.OutOfOrder} | {r.Receipts:N0}/{r.ExpectedReceipts:N0} | {r.LatencyP50Ns / 1e6:F1} | {r.LatencyP99Ns / 1e6:F1} | {r.LatencyMaxNs / 1e6:F1} | {r.MemberCompleteP50Ns / 1e6:F0} | {r.TimeToAllNs / 1e6:F0} | {r.RelaysDoneNs / 1e6:F0} ({r.ArrivedByRelaysDone * 100:F0}%) | {r.ArrivalP10Ns / 1e6:F0}/{r.ArrivalP50Ns / 1e6:F0}/{r.ArrivalP90Ns / 1e6:F0} | {r.ServerCpuMs:F0} ({r.ServerUserCpuMs:F0}) | {r.ClientCpuMs:F0} | {string.Join('/', r.Collections)} | {r.Failures} | {r.LoadAverage:F2} |");
        }

        if (results.Any(r => !string.IsNullOrEmpty(r.AllocationTypes)))
        {
            Line($"");
            Line($"## What the servers allocated in the measured burst (sampled, about one sample per 100 KB)");
            Line($"");
            foreach (BurstMeasurement r in results.Where(r => !string.IsNullOrEmpty(r.AllocationTypes)))
            {
                Line($"- run {r.Run}, {r.Variant}: {r.AllocationTypes}");
            }
        }

        double load = results.Count == 0 ? 0 : results.Max(r => r.LoadAverage);
        Line($"");
        Line($"Load average (1 min) at the ends of the runs: {(results.Count == 0 ? 0 : results.Min(r => r.LoadAverage)):F2}-{load:F2}{(load > 4 ? " — above 4: the tool's own server and clients count in it (a burst raises it and it carries into the next runs' lines), and so would other work on the machine" : "")}.");
        return page.ToString();
    }

    public static string ToCsv(IReadOnlyList<BurstMeasurement> results)
    {
        ArgumentNullException.ThrowIfNull(results);
        var csv = new StringBuilder("run,websockets,messages,payload_bytes,variant,complete,closed,close_codes,ended,server_closed,out_of_order,unexpected,receipts,expected_receipts,relayed,latency_p50_ms,latency_p99_ms,latency_max_ms,member_complete_p50_ms,time_to_all_ms,relays_done_ms,arrived_by_relays_done,arrival_p10_ms,arrival_p50_ms,arrival_p90_ms,send_ms,timed_out,server_cpu_ms,server_user_cpu_ms,server_allocated_bytes,gen0,gen1,gen2,client_cpu_ms,clean,load_average\n");
        foreach (BurstMeasurement r in results)
        {
            csv.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"{r.Run},{r.WebSockets},{r.Messages},{r.PayloadBytes},{r.Variant},{r.Complete},{r.Closed},{r.CloseCodes},{r.Ended},{r.ServerClosed},{r.OutOfOrder},{r.Unexpected},{r.Receipts},{r.ExpectedReceipts},{r.Relayed},{r.LatencyP50Ns / 1e6:F3},{r.LatencyP99Ns / 1e6:F3},{r.LatencyMaxNs / 1e6:F3},{r.MemberCompleteP50Ns / 1e6:F3},{r.TimeToAllNs / 1e6:F3},{r.RelaysDoneNs / 1e6:F3},{r.ArrivedByRelaysDone:F4},{r.ArrivalP10Ns / 1e6:F3},{r.ArrivalP50Ns / 1e6:F3},{r.ArrivalP90Ns / 1e6:F3},{r.SendNs / 1e6:F3},{r.TimedOut},{r.ServerCpuMs:F1},{r.ServerUserCpuMs:F1},{r.ServerAllocatedBytes},{r.Collections[0]},{r.Collections[1]},{r.Collections[2]},{r.ClientCpuMs:F1},{r.IsClean},{r.LoadAverage:F2}"));
        }

        return csv.ToString();
    }

    private static IEnumerable<(int WebSockets, int Messages, int Payload, string Variant, BurstMeasurement[] Runs)> Cells(IReadOnlyList<BurstMeasurement> results) =>
        results.GroupBy(r => (r.WebSockets, r.Messages, r.PayloadBytes, r.Variant)).OrderBy(g => g.Key.WebSockets).ThenBy(g => g.Key.PayloadBytes)
            .Select(g => (g.Key.WebSockets, g.Key.Messages, g.Key.PayloadBytes, g.Key.Variant, g.ToArray()));

    private static double Median(IEnumerable<double> values) => BroadcastReport.Median(values);

    private static string Size(long bytes) => bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0 ? $"{bytes / (1024 * 1024)} MiB" : bytes % 1024 == 0 ? $"{bytes / 1024} KiB" : $"{bytes} B";
}
