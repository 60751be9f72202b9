using System.Globalization;
using System.Net;
using HdrHistogram;
using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Scale;

/// <summary>
/// Runs each (variant, GC mode): the variant's server in its own process (the perf tool's, under the GC mode), a short
/// warm-up, the server's memory after a forced compacting collection (the baseline), then the client processes open
/// their websockets, send their batches through the hold, and the server's memory is taken again with every websocket
/// open; then every websocket closes with a Close exchange and the memory is taken once more.
/// </summary>
public static class ScaleRunner
{
    public const string Workstation = "workstation";
    public const string Server = "server";

    /// <summary>Workstation GC with a 4 MiB gen0 budget (<c>DOTNET_GCgen0size</c>): the default budget follows the
    /// cache (16 MiB here), and a busy server keeps all of it committed.</summary>
    public const string WorkstationSmallGen0 = "workstation-gen0-4mib";

    /// <summary>Websockets per source address when the options do not say.</summary>
    private const int WebSocketsPerSource = 5_000;

    public static async Task<IReadOnlyList<ScaleResult>> RunAsync(ScaleOptions options, Action<string>? log = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        var results = new List<ScaleResult>();
        int run = 0;
        for (int repeat = 1; repeat <= options.Repeat; repeat++)
        {
            foreach (string gc in options.GcModes)
            {
                foreach (string variant in options.Variants)
                {
                    if (PeerServers.IsPeer(variant) && gc != options.GcModes[0])
                    {
                        continue; // no .NET GC to change: one run per repeat
                    }

                    // The heap is walked in the first round only (it takes a few seconds and says the same every time).
                    ScaleOptions thisRun = repeat == 1 ? options : options with { HeapTypes = 0 };
                    ScaleResult result = await RunOneAsync(variant, gc, thisRun, run++, log, cancellationToken) with { Run = repeat };
                    log?.Invoke(result.ToString());
                    results.Add(result);
                }
            }
        }

        return results;
    }

    private static async Task<ScaleResult> RunOneAsync(string variant, string gc, ScaleOptions options, int run, Action<string>? log, CancellationToken cancellationToken)
    {
        var environment = new Dictionary<string, string>
        {
            ["DOTNET_gcServer"] = gc == Server ? "1" : "0",
            ["DOTNET_gcConcurrent"] = options.GcConcurrent ? "1" : "0",
        };
        if (gc == WorkstationSmallGen0)
        {
            environment["DOTNET_GCgen0size"] = "0x400000";
        }

        foreach ((string name, string value) in options.ServerEnvironment)
        {
            environment[name] = value;
        }

        log?.Invoke($"{variant}, {gc} GC: starting the server");
        await using ServerProcess server = await ServerProcess.StartAsync(variant, tls: false, http2: false, core: -1, environment: environment);
        var endPoint = new IPEndPoint(IPAddress.Loopback, server.Port);
        await WarmUpAsync(endPoint);
        IReadOnlyDictionary<string, string> baseline = await SettledBaselineAsync(server);
        TimeSpan cpuBefore = server.CpuTime;
        bool heapTypes = options.HeapTypes > 0 && server.IsManaged;
        Dictionary<string, (long Bytes, long Count)>? typesBefore = heapTypes ? HeapTypes.Take(server.ProcessId) : null;

        int processes = options.ClientProcesses;
        int largestShare = (options.WebSockets + processes - 1) / processes;
        int sources = options.SourcesPerClient > 0 ? options.SourcesPerClient : Math.Max(1, (largestShare + WebSocketsPerSource - 1) / WebSocketsPerSource);
        var clients = new List<ClientProcess>();
        var reports = new ClientReport[processes];
        try
        {
            for (int i = 0; i < processes; i++)
            {
                clients.Add(ClientProcess.Start(new ClientSettings
                {
                    Port = server.Port,
                    WebSockets = (options.WebSockets / processes) + (i < options.WebSockets % processes ? 1 : 0),
                    Sources = [.. Enumerable.Range(((run * processes) + i) * sources, sources).Select(SourceAddresses.At)],
                    Seed = (options.Seed * 1_000_003) + (run * 10_007) + (i * 100_003),
                    MinInterval = options.MinInterval,
                    MaxInterval = options.MaxInterval,
                    Concurrency = options.Concurrency,
                }));
            }

            log?.Invoke($"{variant}, {gc} GC: {options.WebSockets} websockets from {processes} processes, {processes * sources} source addresses");
            TimeSpan connectLimit = TimeSpan.FromSeconds(120 + (largestShare / 50));
            ClientReport[] connected = await Task.WhenAll(clients.Select(c => c.ReportAsync("connected", connectLimit, cancellationToken)));
            connected.CopyTo(reports, 0);
            log?.Invoke($"{variant}, {gc} GC: {connected.Sum(r => r.Open)} open in {connected.Max(r => r.Seconds):F1} s; holding {options.Hold.TotalSeconds} s");
            await Task.WhenAll(clients.Select(c => c.SendAsync("start")));
            await Task.Delay(options.Hold, cancellationToken);
            double load = LoadAverage();
            await Task.WhenAll(clients.Select(c => c.SendAsync("stop")));
            ClientReport[] held = await Task.WhenAll(clients.Select(c => c.ReportAsync("held", TimeSpan.FromSeconds(120), cancellationToken)));
            held.CopyTo(reports, 0);
            TimeSpan serverCpu = server.CpuTime - cpuBefore; // the handshakes and the hold
            IReadOnlyDictionary<string, string> open = await server.MemoryAsync();
            Dictionary<string, (long Bytes, long Count)>? typesOpen = heapTypes ? HeapTypes.Take(server.ProcessId) : null;
            TimeSpan cpuBeforeClose = server.CpuTime; // not the forced collection or the heap walk just done
            log?.Invoke($"{variant}, {gc} GC: closing");
            await Task.WhenAll(clients.Select(c => c.SendAsync("close")));
            ClientReport[] closed = await Task.WhenAll(clients.Select(c => c.ReportAsync("closed", TimeSpan.FromSeconds(120), cancellationToken)));
            closed.CopyTo(reports, 0);
            serverCpu += server.CpuTime - cpuBeforeClose; // and the close exchanges
            IReadOnlyDictionary<string, string> afterClose = await server.MemoryAsync();

            LongHistogram handshakes = LatencyRecording.Create();
            LongHistogram roundTrips = LatencyRecording.Create();
            foreach (ClientReport report in connected)
            {
                LatencyRecording.AddPairs(handshakes, report.Handshakes);
            }

            foreach (ClientReport report in held)
            {
                LatencyRecording.AddPairs(roundTrips, report.RoundTrips);
            }

            return new ScaleResult
            {
                Variant = variant,
                Gc = gc == WorkstationSmallGen0 && open["gc"] == Workstation ? WorkstationSmallGen0 : open["gc"],
                GcConcurrent = open["concurrent"] == "True",
                GcHeaps = int.Parse(open["heaps"], CultureInfo.InvariantCulture),
                WebSockets = options.WebSockets,
                Open = held.Sum(r => r.Open),
                ClientProcesses = processes,
                SourceAddresses = processes * sources,
                Failures = closed.SelectMany(r => r.Failures).GroupBy(f => f.Key).ToDictionary(g => g.Key, g => g.Sum(f => f.Value)),
                ConnectSeconds = connected.Max(r => r.Seconds),
                HandshakeP50Ms = LatencyRecording.Percentile(handshakes, 50) / 1e6,
                HandshakeP99Ms = LatencyRecording.Percentile(handshakes, 99) / 1e6,
                HoldSeconds = options.Hold.TotalSeconds,
                Batches = held.Sum(r => r.Batches),
                Sent = held.Sum(r => r.Sent),
                Received = held.Sum(r => r.Received),
                RoundTripP50Ms = LatencyRecording.Percentile(roundTrips, 50) / 1e6,
                RoundTripP99Ms = LatencyRecording.Percentile(roundTrips, 99) / 1e6,
                RoundTripMaxMs = (roundTrips.TotalCount == 0 ? 0 : roundTrips.GetMaxValue()) / 1e6,
                ClosedCleanly = closed.Sum(r => r.ClosedCleanly),
                LoadAverage = load,
                ServerCpuSeconds = serverCpu.TotalSeconds,
                HeapGrowth = typesBefore is null || typesOpen is null ? [] : HeapTypes.Growth(typesBefore, typesOpen, Math.Max(1, held.Sum(r => r.Open)), options.HeapTypes),
                RssBaseline = Bytes(baseline, "rss"),
                RssOpen = Bytes(open, "rss"),
                RssClosed = Bytes(afterClose, "rss"),
                HeapBaseline = Bytes(baseline, "heap"),
                HeapOpen = Bytes(open, "heap"),
                HeapClosed = Bytes(afterClose, "heap"),
                JitMethods = open.TryGetValue("jit", out string? jitOpen) && baseline.TryGetValue("jit", out string? jitBaseline)
                    ? long.Parse(jitOpen, CultureInfo.InvariantCulture) - long.Parse(jitBaseline, CultureInfo.InvariantCulture) : null,
            };
        }
        finally
        {
            foreach (ClientProcess client in clients)
            {
                client.Dispose();
            }
        }
    }

    /// <summary>Rounds of websockets from this process before the baseline, each echoing a few batches and then
    /// closed: every variant's handshake, echo and close paths run often enough for the runtime's tier-up (30 calls)
    /// and its pools are primed, so the run measures what websockets cost, not the server's one-time start.</summary>
    private const int WarmUpRounds = 4;

    private const int WarmUpWebSockets = 64;

    private const int WarmUpBatches = 3;

    private static async Task WarmUpAsync(IPEndPoint server)
    {
        var stats = new LoadStats();
        var random = new Random(7);
        for (int round = 0; round < WarmUpRounds; round++)
        {
            IdleWebSocket?[] webSockets = await Task.WhenAll(Enumerable.Range(0, WarmUpWebSockets).Select(_ => IdleWebSocket.ConnectAsync(IPAddress.Loopback, server, stats, TimeSpan.FromSeconds(30))));
            for (int batch = 0; batch < WarmUpBatches; batch++)
            {
                foreach (IdleWebSocket? webSocket in webSockets)
                {
                    if (webSocket is not null)
                    {
                        await webSocket.SendBatchAsync(random);
                    }
                }

                for (int i = 0; i < 200 && webSockets.Any(w => w is not null && w.Received < w.Sent); i++)
                {
                    await Task.Delay(25);
                }
            }

            await Task.WhenAll(webSockets.OfType<IdleWebSocket>().Select(w => w.CloseAsync(TimeSpan.FromSeconds(10))));
        }

        if (!stats.Failures.IsEmpty)
        {
            throw new InvalidOperationException("The warm-up failed: " + string.Join(", ", stats.Failures.Select(f => $"{f.Key} x{f.Value}")));
        }
    }

    /// <summary>Waits (at most 10 s) until a .NET server's JIT has been idle for half a second: the tier-ups the
    /// warm-up queued are compiled on a background thread, and would otherwise land in the run's CPU and memory.</summary>
    private static async Task<IReadOnlyDictionary<string, string>> SettledBaselineAsync(ServerProcess server)
    {
        IReadOnlyDictionary<string, string> memory = await server.MemoryAsync();
        for (int i = 0; i < 20 && server.IsManaged && memory.TryGetValue("jit", out string? before); i++)
        {
            await Task.Delay(500);
            memory = await server.MemoryAsync();
            if (memory["jit"] == before)
            {
                break;
            }
        }

        return memory;
    }

    /// <summary>The 1-minute load average (Linux), else 0.</summary>
    private static double LoadAverage()
    {
        try
        {
            return double.Parse(File.ReadAllText("/proc/loadavg").Split(' ')[0], CultureInfo.InvariantCulture);
        }
        catch (IOException)
        {
            return 0;
        }
        catch (UnauthorizedAccessException)
        {
            return 0;
        }
    }

    private static long Bytes(IReadOnlyDictionary<string, string> memory, string name) => long.Parse(memory[name], CultureInfo.InvariantCulture);
}
