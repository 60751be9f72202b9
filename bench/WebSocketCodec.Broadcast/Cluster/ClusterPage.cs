using System.Globalization;
using System.Text;

namespace WebSocketCodec.Broadcast.Cluster;

/// <summary>The cluster mode's page and CSV: medians of the repeats per variant and payload, the ratios the issue's
/// targets name (p99 across three nodes over the single node's; bytes between nodes per broadcast over the payload).</summary>
public static class ClusterPage
{
    public static async Task WriteAsync(string prefix, IReadOnlyList<ClusterMeasurement> runs, ClusterOptions options, string command, CancellationToken cancellationToken)
    {
        var csv = new StringBuilder("variant,nodes,payload,members,broadcasts,p50_ms,p99_ms,max_ms,delivered_per_s,cpu_us_per_broadcast_per_node,bytes_per_broadcast_per_node_pair,idle_bytes_per_s,delivered,expected,out_of_order\n");
        foreach (ClusterMeasurement r in runs)
        {
            csv.AppendLine(string.Create(CultureInfo.InvariantCulture,
                $"{r.Variant},{r.Nodes},{r.Payload},{r.Members},{r.Broadcasts},{r.P50.TotalMilliseconds:F2},{r.P99.TotalMilliseconds:F2},{r.Max.TotalMilliseconds:F2},{r.DeliveredPerSecond:F0},{r.CpuPerBroadcastPerNodeUs:F1},{r.BytesPerBroadcastPerNodePair?.ToString("F0", CultureInfo.InvariantCulture) ?? ""},{r.IdleBytesPerSecond:F0},{r.Delivered},{r.Expected},{r.OutOfOrder}"));
        }

        var page = new StringBuilder();
        page.AppendLine("# Groups across a cluster: one room on three chat nodes against one node");
        page.AppendLine();
        page.AppendLine(string.Create(CultureInfo.InvariantCulture, $"""
            `samples/Chat` as {options.Nodes} processes with `--seeds` (each room a `ClusterWebSocketGroup`, Akka remoting on
            our websocket transport in endpoint mode) against one process without it (the room a local `WebSocketGroup`):
            {options.WebSocketsPerNode * options.Nodes} members in one room ({options.WebSocketsPerNode} per node on the cluster, all
            on the one node for the baseline), and {options.Nodes} publishers (one per node, or all {options.Nodes} on the one node),
            each sending {options.Rate} texts a second for {options.Duration.TotalSeconds:F0} s. The members and publishers are
            our client websockets in the tool's own process (one clock: a text's delivery time runs from its publisher's send
            to its last member's receipt). Every process shares this machine's 2 cores: the clients' share of the CPU is in
            every figure. Medians of {options.Repeat} runs, variants interleaved.

            - delivery p50 / p99: over every text of the run, its send to its last member;
            - msgs/s: member receipts a second, from the first send to the last receipt;
            - CPU: each node's user + system time (/proc) during the run, averaged over the nodes, per broadcast;
            - bytes per broadcast per node pair: TCP payload bytes sent between node processes during the run (`ss`'s
              `bytes_sent` over every connection whose two ends are nodes: the remoting associations' websocket frames,
              headers included), less the idle rate of gossip and heartbeats measured for {options.IdleWindow.TotalSeconds:F0} s
              before it, over broadcasts × the {options.Nodes - 1} nodes each broadcast goes to.

            """));
        foreach (int payload in options.Payloads)
        {
            page.AppendLine(string.Create(CultureInfo.InvariantCulture, $"## {payload} B"));
            page.AppendLine();
            page.AppendLine("| variant | nodes | members | p50 | p99 | msgs/s | CPU per broadcast per node | bytes per broadcast per node pair | all delivered, in order |");
            page.AppendLine("|---|---|---|---|---|---|---|---|---|");
            foreach (string variant in new[] { ClusterRunner.Single, ClusterRunner.Cluster, ClusterRunner.ClusterPaused })
            {
                ClusterMeasurement[] set = [.. runs.Where(r => r.Variant == variant && r.Payload == payload)];
                if (set.Length == 0)
                {
                    continue;
                }

                double? bytes = set[0].BytesPerBroadcastPerNodePair is null ? null : Median(set.Select(r => r.BytesPerBroadcastPerNodePair!.Value));
                page.AppendLine(string.Create(CultureInfo.InvariantCulture,
                    $"| {variant} | {set[0].Nodes} | {set[0].Members} | {Median(set.Select(r => r.P50.TotalMilliseconds)):F1} ms | {Median(set.Select(r => r.P99.TotalMilliseconds)):F1} ms | {Median(set.Select(r => r.DeliveredPerSecond)):F0} | {Median(set.Select(r => r.CpuPerBroadcastPerNodeUs)):F0} µs | {(bytes is { } b ? $"{b:F0} B" : "n/a")} | {set.Count(r => r.IsClean)} of {set.Length} runs |"));
            }

            ClusterMeasurement[] single = [.. runs.Where(r => r.Variant == ClusterRunner.Single && r.Payload == payload)];
            ClusterMeasurement[] cluster = [.. runs.Where(r => r.Variant == ClusterRunner.Cluster && r.Payload == payload)];
            if (single.Length > 0 && cluster.Length > 0)
            {
                double ratio = Median(cluster.Select(r => r.P99.TotalMilliseconds)) / Median(single.Select(r => r.P99.TotalMilliseconds));
                double bytes = Median(cluster.Select(r => r.BytesPerBroadcastPerNodePair ?? 0));
                page.AppendLine();
                page.AppendLine(string.Create(CultureInfo.InvariantCulture,
                    $"Targets: p99 across the cluster / on one node = **{ratio:F2}×** (at most 2×: {(ratio <= 2 ? "met" : "missed")}); bytes between nodes per broadcast = payload + **{bytes - payload:F0} B** per node pair (at most + 200 B: {(bytes - payload <= 200 ? "met" : "missed")})."));
            }

            ClusterMeasurement[] pausedRuns = [.. runs.Where(r => r.Variant == ClusterRunner.ClusterPaused && r.Payload == payload)];
            if (pausedRuns.Length > 0 && cluster.Length > 0)
            {
                double ratio = Median(pausedRuns.Select(r => r.P99.TotalMilliseconds)) / Median(cluster.Select(r => r.P99.TotalMilliseconds));
                page.AppendLine(string.Create(CultureInfo.InvariantCulture,
                    $"With the third node paused (SIGSTOP), p99 to the two others' members / the cluster's without the pause = **{ratio:F2}×** (at most 2×: {(ratio <= 2 ? "met" : "missed")}); the paused node's members are left out (they get the texts when it resumes, or are closed with 1001 if it was downed meanwhile)."));
            }

            page.AppendLine();
        }

        await File.WriteAllTextAsync(prefix + ".csv", csv.ToString(), cancellationToken);
        await File.WriteAllTextAsync(prefix + ".md", WebSocketCodec.Bench.ResultsStamp.Current(command).StampPage(page.ToString()), cancellationToken);
    }

    private static double Median(IEnumerable<double> values)
    {
        double[] sorted = [.. values.Order()];
        return sorted.Length == 0 ? double.NaN : sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
    }
}
