using System.Diagnostics;

namespace WebSocketCodec.Broadcast.Cluster;

/// <summary>What one run measured.</summary>
public sealed record ClusterMeasurement(
    string Variant, int Nodes, int Payload, int Members, int Broadcasts, TimeSpan P50, TimeSpan P99, TimeSpan Max,
    double DeliveredPerSecond, double CpuPerBroadcastPerNodeUs, double? BytesPerBroadcastPerNodePair, double IdleBytesPerSecond,
    long Delivered, long Expected, int OutOfOrder)
{
    public bool IsClean => Delivered == Expected && OutOfOrder == 0;
}

/// <summary>
/// One run: the chat's nodes (three as a cluster, or one as the baseline), its members and publishers in this process,
/// a warm-up, the idle rate of bytes between nodes, then each publisher sends at the given rate for the duration;
/// measured until every member has every text (or the bound).
/// </summary>
public static class ClusterRunner
{
    public const string Cluster = "cluster";
    public const string Single = "single";

    /// <summary>The cluster with its third node paused (SIGSTOP) through the measured phase: delivery to the two
    /// others' members (the third publisher sends from the first node instead).</summary>
    public const string ClusterPaused = "cluster-paused";

    public static async Task<ClusterMeasurement> RunAsync(string variant, int payload, ClusterOptions options, string chatDll, Action<string> log)
    {
        bool paused = variant == ClusterPaused;
        bool cluster = variant == Cluster || paused;
        int nodes = cluster ? options.Nodes : 1;
        int publishers = options.Nodes; // the same number of publishers either way: one per node, or all on the one node
        int perPublisher = (int)(options.Rate * options.Duration.TotalSeconds);
        const int warmUp = 20;
        await using ChatNodes servers = await ChatNodes.StartAsync(chatDll, nodes, cluster, TimeSpan.FromSeconds(90));
        Uri[] urls = [.. servers.Ports.Select(port => new Uri($"ws://127.0.0.1:{port}/chat/bench"))];
        int perNode = options.WebSocketsPerNode * options.Nodes / nodes;
        Uri[] publisherUrls = [.. Enumerable.Range(0, publishers).Select(p => urls[paused && p == nodes - 1 ? 0 : p % nodes])];
        await using ClusterMembers members = await ClusterMembers.OpenAsync(urls, perNode, publisherUrls, perPublisher, warmUp);
        await members.WhenEveryoneHearsEveryPublisherAsync(TimeSpan.FromSeconds(60));
        log($"{variant} {payload} B: {members.Count} websockets on {nodes} node(s), all hear all {publishers} publishers");

        // Warm-up: the same traffic, unmeasured.
        await PublishAsync(members, 0, warmUp, payload, options.Rate, null);
        await Task.Delay(TimeSpan.FromSeconds(2));

        // The idle rate of gossip and heartbeats between nodes.
        long idleStart = InterNodeBytes.Now(servers.ProcessIds);
        long idleClock = Stopwatch.GetTimestamp();
        await Task.Delay(options.IdleWindow);
        double idleRate = (InterNodeBytes.Now(servers.ProcessIds) - idleStart) / Stopwatch.GetElapsedTime(idleClock).TotalSeconds;

        if (paused)
        {
            members.Exclude(urls[nodes - 1]);
            servers.Pause(nodes - 1);
            await Task.Delay(TimeSpan.FromMilliseconds(200)); // stopped for good before the first text
        }

        TimeSpan[] cpuBefore = servers.CpuTimes();
        long bytesBefore = InterNodeBytes.Now(servers.ProcessIds);
        long started = Stopwatch.GetTimestamp();
        long[] sentAt = new long[publishers * perPublisher];
        await PublishAsync(members, warmUp, perPublisher, payload, options.Rate, sentAt);
        long drainStart = Stopwatch.GetTimestamp();
        while (members.Delivered < members.Expected && Stopwatch.GetElapsedTime(drainStart) < options.DrainBound)
        {
            await Task.Delay(20);
        }

        TimeSpan elapsed = Stopwatch.GetElapsedTime(started);
        TimeSpan[] cpuAfter = servers.CpuTimes();
        long bytesAfter = InterNodeBytes.Now(servers.ProcessIds);
        int broadcasts = publishers * perPublisher;
        List<TimeSpan> times = members.DeliveryTimes(sentAt);
        times.Sort();
        double cpuUs = cpuAfter.Zip(cpuBefore, (a, b) => (a - b).TotalMicroseconds).Take(paused ? nodes - 1 : nodes).Average() / broadcasts;
        double? bytes = cluster && !paused
            ? ((bytesAfter - bytesBefore) - (idleRate * elapsed.TotalSeconds)) / (broadcasts * (double)(nodes - 1))
            : null;
        TimeSpan activeSpan = Stopwatch.GetElapsedTime(started, Math.Max(members.LastReceipt, started + 1));
        var result = new ClusterMeasurement(
            variant, nodes, payload, members.Count, broadcasts,
            Percentile(times, 0.50), Percentile(times, 0.99), times.Count > 0 ? times[^1] : TimeSpan.Zero,
            members.Delivered / activeSpan.TotalSeconds, cpuUs, bytes, idleRate, members.Delivered, members.Expected, members.OutOfOrder);
        log($"{variant} {payload} B: p50 {result.P50.TotalMilliseconds:F1} ms, p99 {result.P99.TotalMilliseconds:F1} ms, {result.DeliveredPerSecond:F0} msgs/s, CPU {cpuUs:F0} us/broadcast/node, "
            + (bytes is { } b ? $"{b:F0} B/broadcast/node pair (idle {idleRate:F0} B/s), " : "")
            + $"{result.Delivered}/{result.Expected} delivered, {result.OutOfOrder} out of order");
        return result;
    }

    /// <summary>Every publisher sends <paramref name="count"/> texts at <paramref name="rate"/> a second, from
    /// sequence number <paramref name="first"/>; records each measured text's send time.</summary>
    private static async Task PublishAsync(ClusterMembers members, int first, int count, int payload, int rate, long[]? sentAt)
    {
        long start = Stopwatch.GetTimestamp();
        for (int k = 0; k < count; k++)
        {
            TimeSpan due = TimeSpan.FromSeconds(k / (double)rate);
            TimeSpan wait = due - Stopwatch.GetElapsedTime(start);
            if (wait > TimeSpan.Zero)
            {
                await Task.Delay(wait);
            }

            for (int p = 0; p < members.Publishers.Count; p++)
            {
                long now = Stopwatch.GetTimestamp();
                if (sentAt is not null)
                {
                    sentAt[(p * count) + k] = now;
                }

                await members.Publishers[p].SendTextAsync(ClusterMembers.Text(p, first + k, now, payload));
            }
        }
    }

    private static TimeSpan Percentile(List<TimeSpan> sorted, double q) =>
        sorted.Count == 0 ? TimeSpan.Zero : sorted[Math.Min(sorted.Count - 1, (int)Math.Ceiling(q * sorted.Count) - 1)];
}
