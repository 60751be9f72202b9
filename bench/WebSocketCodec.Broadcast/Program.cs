using System.CommandLine;
using System.Globalization;
using WebSocketCodec.Broadcast;
using WebSocketCodec.Broadcast.Client;
using WebSocketCodec.Broadcast.Run;
using WebSocketCodec.Broadcast.Server;

// Driver (the default command): for each websocket count, payload and variant (interleaved), a server process and a
// client process; see BroadcastRunner.
var variants = new Option<string>("--variants") { DefaultValueFactory = _ => string.Join(',', BroadcastVariants.All), Description = "Comma-separated: " + string.Join(", ", BroadcastVariants.Known) + " (the last: the group on our Kestrel fast path, not in the default set)." };
var payloads = new Option<string>("--payloads") { DefaultValueFactory = _ => "64,1024", Description = "Payload sizes in bytes, comma-separated (at least 12)." };
var webSockets = new Option<string>("--websockets") { DefaultValueFactory = _ => "1000,10000", Description = "Websocket counts, comma-separated (one client process holds them all: mind ulimit -n)." };
var broadcasts = new Option<int>("--broadcasts") { DefaultValueFactory = _ => 200, Description = "Measured broadcasts per run." };
var warmUp = new Option<int>("--warmup") { DefaultValueFactory = _ => 50, Description = "Broadcasts before the measured ones." };
var repeat = new Option<int>("--repeat") { DefaultValueFactory = _ => 3, Description = "Runs of the whole set, variants interleaved; the page compares medians." };
var report = new Option<string>("--report") { DefaultValueFactory = _ => "bench/results/broadcast", Description = "Where the page and the CSV go: PREFIX.md and PREFIX.csv." };
var allocationTypes = new Option<bool>("--allocation-types") { Description = "The servers also sample which types they allocate (listed on the page; the sampling allocates a little itself)." };
var renderCsv = new Option<FileInfo?>("--render-csv") { Description = "Measure nothing: render the page again (to --report PREFIX.md) from a CSV this tool wrote; pass the run's other options (--warmup, --broadcasts, --repeat, --stalled, ...) for the page's header." };
var stalledCounts = new Option<string>("--stalled") { DefaultValueFactory = _ => "0", Description = "Websockets that never read, beside the reading ones, in the same group or member list (filled by the server until not writable before they join; delivery is measured over the reading ones); comma-separated to interleave, e.g. 0,10." };
var once = new Option<string>("--once") { DefaultValueFactory = _ => "", Description = "Comma-separated variants (of --variants) run in the first repeat only (e.g. the loops, to show a stalled member holds them)." };
var holdBound = new Option<int>("--hold-bound") { DefaultValueFactory = _ => 10, Description = "Seconds one broadcast may run before the server reports the run as held by a stalled member." };
var smoke = new Option<bool>("--smoke") { Description = "20 websockets, 64 B, 5 + 20 broadcasts (with --burst: a burst of 5 each), one run: checks that it all runs." };
var burstMessages = new Option<int>("--burst") { DefaultValueFactory = _ => 0, Description = "The burst mode: messages each websocket publishes at once, relayed by the server to the whole group (SlowMemberPolicy.Close, the default session options), a chat; group variants only (default: group,group-fastpath). 0: the server broadcasts, the websockets only read." };
var burstWarmUp = new Option<int>("--burst-warmup") { DefaultValueFactory = _ => 1, Description = "The burst mode: messages each websocket publishes in a warm-up burst before the measured one." };
var burstTimeout = new Option<int>("--burst-timeout") { DefaultValueFactory = _ => 120, Description = "The burst mode: seconds a burst may take to reach every websocket." };
var root = new RootCommand("WebSocketCodec broadcast benchmark: one message to many websockets, a WebSocketGroup against loops of per-websocket sends (ours and ASP.NET Core's); server CPU and allocation per broadcast, delivery time to the last websocket.")
{
    variants, payloads, webSockets, broadcasts, warmUp, repeat, report, allocationTypes, renderCsv, stalledCounts, once, holdBound, smoke, burstMessages, burstWarmUp, burstTimeout,
};
root.SetAction(async (parseResult, cancellation) =>
{
    string[] chosen = Split(parseResult.GetValue(variants)!);
    int[] sizes = [.. Split(parseResult.GetValue(payloads)!).Select(s => int.Parse(s, CultureInfo.InvariantCulture))];
    int[] counts = [.. Split(parseResult.GetValue(webSockets)!).Select(s => int.Parse(s, CultureInfo.InvariantCulture))];
    int[] stalled = [.. Split(parseResult.GetValue(stalledCounts)!).Select(s => int.Parse(s, CultureInfo.InvariantCulture))];
    string[] onlyOnce = Split(parseResult.GetValue(once)!);
    if (chosen.Except(BroadcastVariants.Known).Any() || sizes.Any(s => s < 12 || s > 4000) || counts.Any(c => c < 1)
        || stalled.Length == 0 || stalled.Any(k => k < 0) || onlyOnce.Except(chosen).Any() || parseResult.GetValue(holdBound) < 1)
    {
        Console.Error.WriteLine($"--variants from {string.Join(", ", BroadcastVariants.Known)}; --payloads 12..4000 bytes; --websockets at least 1; --stalled 0 or more; --once of --variants; --hold-bound at least 1 s");
        return 2;
    }

    bool isSmoke = parseResult.GetValue(smoke);
    int burst = parseResult.GetValue(burstMessages);
    if (burst > 0)
    {
        string[] groups = [BroadcastVariants.Group, BroadcastVariants.GroupFastPath, BroadcastVariants.GroupLean];
        if (parseResult.GetResult(variants) is not { Implicit: false })
        {
            chosen = groups;
        }

        if (chosen.Except(groups).Any() || sizes.Any(s => s < 16) || stalled.Any(k => k > 0) || parseResult.GetValue(burstWarmUp) < 0 || parseResult.GetValue(burstTimeout) < 1)
        {
            Console.Error.WriteLine("--burst: --variants of group, group-fastpath, group-lean (the loops have no burst mode); --payloads at least 16 bytes; no --stalled; --burst-warmup 0 or more; --burst-timeout at least 1 s");
            return 2;
        }

        var burstOptions = new BroadcastOptions
        {
            Variants = chosen,
            Payloads = isSmoke ? [64] : sizes,
            WebSockets = isSmoke ? [20] : counts,
            Repeat = isSmoke ? 1 : parseResult.GetValue(repeat),
            Burst = isSmoke ? 5 : burst,
            BurstWarmUp = parseResult.GetValue(burstWarmUp),
            BurstTimeout = TimeSpan.FromSeconds(parseResult.GetValue(burstTimeout)),
            AllocationTypes = parseResult.GetValue(allocationTypes),
        };
        string machine = Machine.Describe();
        Console.WriteLine($"# {machine}");
        IReadOnlyList<BurstMeasurement> bursts = await BurstRunner.RunAsync(burstOptions, line => Console.WriteLine($"{DateTime.Now:HH:mm:ss} {line}"), cancellation);
        string burstPrefix = parseResult.GetValue(report)!;
        await BurstPage.WriteAsync(burstPrefix, bursts, burstOptions, "dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- " + string.Join(' ', args), machine, cancellation);
        Console.WriteLine($"wrote {burstPrefix}.md and {burstPrefix}.csv");
        return bursts.All(r => r.IsClean) ? 0 : 1;
    }

    var options = new BroadcastOptions
    {
        Variants = chosen,
        Payloads = isSmoke ? [64] : sizes,
        WebSockets = isSmoke ? [20] : counts,
        Broadcasts = isSmoke ? 20 : parseResult.GetValue(broadcasts),
        WarmUp = isSmoke ? 5 : parseResult.GetValue(warmUp),
        Repeat = isSmoke ? 1 : parseResult.GetValue(repeat),
        AllocationTypes = parseResult.GetValue(allocationTypes),
        Stalled = stalled,
        Once = onlyOnce,
        HoldBound = TimeSpan.FromSeconds(parseResult.GetValue(holdBound)),
    };
    string prefix = parseResult.GetValue(report)!;
    if (parseResult.GetValue(renderCsv) is { } csv)
    {
        IReadOnlyList<BroadcastMeasurement> read = BroadcastReport.FromCsv(await File.ReadAllTextAsync(csv.FullName, cancellation));
        // The run's options as given here (less --render-csv), for the page's header.
        int at = Array.IndexOf(args, "--render-csv");
        string[] given = [.. args.Where((_, i) => i != at && i != at + 1)];
        string command = "dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- " + string.Join(' ', given);
        // The stamp stays the run's (the page's own, when it has one): the numbers were measured then, not now.
        string? before = File.Exists(prefix + ".md") ? await File.ReadAllTextAsync(prefix + ".md", cancellation) : null;
        WebSocketCodec.Bench.ResultsStamp stamp = (before is null ? null : WebSocketCodec.Bench.ResultsStamp.Parse(before)) ?? WebSocketCodec.Bench.ResultsStamp.Current(command);
        await File.WriteAllTextAsync(prefix + ".md", stamp.StampPage(BroadcastReport.ToMarkdown(read, options, command, $"(This page was rendered again from {csv.Name}, with the analysis lines of a later version of the tool; the numbers are that run's.)")), cancellation);
        Console.WriteLine($"wrote {prefix}.md");
        return 0;
    }

    Console.WriteLine($"# {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}");
    IReadOnlyList<BroadcastMeasurement> results = await BroadcastRunner.RunAsync(options, line => Console.WriteLine($"{DateTime.Now:HH:mm:ss} {line}"), cancellation);
    await BroadcastReport.WriteAsync(prefix, results, options, "dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- " + string.Join(' ', args), cancellation);
    Console.WriteLine($"wrote {prefix}.md and {prefix}.csv");
    return results.All(r => r.IsClean || r.IsHeld) ? 0 : 1; // a held loop is a result, not the tool failing
});

// The cluster mode (issue 41): one chat room on three samples/Chat nodes (cluster groups) against one node.
var cluster = new Command("cluster", "Groups across an Akka cluster: one room on three samples/Chat --seeds nodes against one node; delivery p50/p99, msgs/s, CPU per broadcast per node, bytes between nodes per broadcast.");
var clusterWebSockets = new Option<int>("--websockets") { DefaultValueFactory = _ => 1000, Description = "Reading websockets per node (the one-node baseline holds them all)." };
var clusterPayloads = new Option<string>("--payloads") { DefaultValueFactory = _ => "64,1024", Description = "Payload sizes in bytes, comma-separated (32 to 4096: the chat's texts)." };
var clusterRate = new Option<int>("--rate") { DefaultValueFactory = _ => 5, Description = "Texts a second each of the three publishers sends." };
var clusterSeconds = new Option<int>("--seconds") { DefaultValueFactory = _ => 10, Description = "How long the publishers send." };
var clusterRepeat = new Option<int>("--repeat") { DefaultValueFactory = _ => 3, Description = "Runs of the whole set, variants interleaved." };
var clusterReport = new Option<string>("--report") { DefaultValueFactory = _ => "bench/results/broadcast-cluster", Description = "Where the page and the CSV go: PREFIX.md and PREFIX.csv." };
var clusterSmoke = new Option<bool>("--smoke") { Description = "20 websockets per node, 64 B, 2 s, one run: checks that it all runs." };
foreach (Option option in new Option[] { clusterWebSockets, clusterPayloads, clusterRate, clusterSeconds, clusterRepeat, clusterReport, clusterSmoke })
{
    cluster.Options.Add(option);
}

cluster.SetAction(async (parseResult, cancellation) =>
{
    bool isSmoke = parseResult.GetValue(clusterSmoke);
    int[] clusterSizes = [.. Split(parseResult.GetValue(clusterPayloads)!).Select(s => int.Parse(s, CultureInfo.InvariantCulture))];
    if (clusterSizes.Any(s => s is < 32 or > 4096) || parseResult.GetValue(clusterRate) < 1 || parseResult.GetValue(clusterSeconds) < 1 || parseResult.GetValue(clusterWebSockets) < 1)
    {
        Console.Error.WriteLine("--payloads 32..4096 bytes; --rate, --seconds and --websockets at least 1");
        return 2;
    }

    var clusterOptions = new WebSocketCodec.Broadcast.Cluster.ClusterOptions
    {
        WebSocketsPerNode = isSmoke ? 20 : parseResult.GetValue(clusterWebSockets),
        Payloads = isSmoke ? [64] : clusterSizes,
        Rate = parseResult.GetValue(clusterRate),
        Duration = TimeSpan.FromSeconds(isSmoke ? 2 : parseResult.GetValue(clusterSeconds)),
        IdleWindow = TimeSpan.FromSeconds(isSmoke ? 1 : 5),
        Repeat = isSmoke ? 1 : parseResult.GetValue(clusterRepeat),
    };
    string chatDll = typeof(WebSocketCodec.Samples.Chat.ChatRooms).Assembly.Location;
    var measured = new List<WebSocketCodec.Broadcast.Cluster.ClusterMeasurement>();
    for (int r = 0; r < clusterOptions.Repeat; r++)
    {
        foreach (int size in clusterOptions.Payloads)
        {
            foreach (string name in new[] { WebSocketCodec.Broadcast.Cluster.ClusterRunner.Single, WebSocketCodec.Broadcast.Cluster.ClusterRunner.Cluster, WebSocketCodec.Broadcast.Cluster.ClusterRunner.ClusterPaused })
            {
                measured.Add(await WebSocketCodec.Broadcast.Cluster.ClusterRunner.RunAsync(name, size, clusterOptions, chatDll, line => Console.WriteLine($"{DateTime.Now:HH:mm:ss} [{r + 1}/{clusterOptions.Repeat}] {line}")));
            }
        }
    }

    string clusterPrefix = parseResult.GetValue(clusterReport)!;
    await WebSocketCodec.Broadcast.Cluster.ClusterPage.WriteAsync(clusterPrefix, measured, clusterOptions, "dotnet run -c Release --project bench/WebSocketCodec.Broadcast -- " + string.Join(' ', args), cancellation);
    Console.WriteLine($"wrote {clusterPrefix}.md and {clusterPrefix}.csv");
    return measured.All(m => m.IsClean) ? 0 : 1;
});
root.Subcommands.Add(cluster);

// Server process (internal): see BroadcastServer.
var serve = new Command("serve", "The server of one run (started by the driver).") { Hidden = true };
var variant = new Option<string>("--variant") { Required = true };
var payload = new Option<int>("--payload") { Required = true };
var sample = new Option<bool>("--allocation-types");
var holdBoundMs = new Option<int>("--hold-bound-ms") { DefaultValueFactory = _ => 10_000 };
var relay = new Option<bool>("--relay");
serve.Options.Add(holdBoundMs);
serve.Options.Add(relay);
serve.Options.Add(variant);
serve.Options.Add(payload);
serve.Options.Add(sample);
serve.SetAction((parseResult, _) => BroadcastServer.RunAsync(parseResult.GetValue(variant)!, parseResult.GetValue(payload), parseResult.GetValue(sample), TimeSpan.FromMilliseconds(parseResult.GetValue(holdBoundMs)), parseResult.GetValue(relay)));
root.Subcommands.Add(serve);

// Client process (internal): see ClientMode.
var client = new Command("client", "The client process of one run (started by the driver).") { Hidden = true };
var port = new Option<int>("--port") { Required = true };
var count = new Option<int>("--websockets") { Required = true };
var total = new Option<int>("--broadcasts") { Required = true };
var concurrency = new Option<int>("--concurrency") { DefaultValueFactory = _ => 64 };
var stalledClients = new Option<int>("--stalled") { DefaultValueFactory = _ => 0 };
var burstPayload = new Option<int>("--burst-payload") { DefaultValueFactory = _ => 0 };
foreach (Option option in new Option[] { port, count, total, concurrency, stalledClients, burstPayload })
{
    client.Options.Add(option);
}

client.SetAction((parseResult, _) => ClientMode.RunAsync(parseResult.GetValue(port), parseResult.GetValue(count), parseResult.GetValue(total), parseResult.GetValue(concurrency), parseResult.GetValue(stalledClients), parseResult.GetValue(burstPayload)));
root.Subcommands.Add(client);

return await root.Parse(args).InvokeAsync();

static string[] Split(string value) => value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
