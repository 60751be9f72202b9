using System.CommandLine;
using System.Globalization;
using System.Net;
using System.Text.Json;
using WebSocketCodec.PerfTest;
using WebSocketCodec.Scale;

// Coordinator (the default command): for each GC mode and variant, a server process and the client processes.
// The perf tool's HTTP/1.1 variants but raw, whose canned 101 (no real Sec-WebSocket-Accept) our client refuses, and
// Bun (run once, under the first GC mode: it has no .NET GC); not the C echo, for the same reason as raw.
string[] available = [.. Variants.All.Where(v => v != Variants.Raw), .. Variants.AllTuned.Where(v => Variants.SplitTuning(v).Variant != Variants.Raw), Variants.Bun, .. Variants.OnLean];
var variants = new Option<string>("--variants") { DefaultValueFactory = _ => "ours-endpoint-messages,ours,raw-upgrade,aspnetcore", Description = "Comma-separated servers (the perf tool's): " + string.Join(", ", available) + " (+tuned: Kestrel with AddKestrelWebSocketTuning; +tuned-inline: and inline scheduling; lean, lean-messages: the lean transport)." };
var gcModes = new Option<string>("--gc") { DefaultValueFactory = _ => "workstation,server", Description = "The servers' GC modes, comma-separated: workstation, server, workstation-gen0-4mib (workstation with DOTNET_GCgen0size=0x400000)." };
var gcConcurrent = new Option<bool>("--gc-concurrent") { DefaultValueFactory = _ => true, Description = "Concurrent (background) GC in the servers, the ASP.NET Core default." };
var webSockets = new Option<int>("--websockets") { DefaultValueFactory = _ => 19_000, Description = "Websockets held open at once, all on one server process." };
var clientProcesses = new Option<int>("--client-processes") { DefaultValueFactory = _ => 2, Description = "Client processes sharing the websockets (each may hold about 20,000 open files: see ulimit -n)." };
var sources = new Option<int>("--sources-per-client") { DefaultValueFactory = _ => 0, Description = "Source addresses (127.0.0.2, ...) per client process; 0: one per 5,000 of its websockets." };
var hold = new Option<double>("--hold") { DefaultValueFactory = _ => 40, Description = "Seconds every websocket is held open, sending its batches, before the memory is taken." };
var interval = new Option<string>("--interval") { DefaultValueFactory = _ => "15-30", Description = "Seconds between a websocket's batches (5-10 messages of 200-500 B), drawn from min-max." };
var concurrency = new Option<int>("--concurrency") { DefaultValueFactory = _ => 64, Description = "Handshakes under way at once per client process." };
var repeat = new Option<int>("--repeat") { DefaultValueFactory = _ => 1, Description = "Runs of the whole set, interleaved; the targets are checked on the medians." };
var seed = new Option<int>("--seed") { DefaultValueFactory = _ => 1, Description = "Seeds the batches' sizes and times." };
var smoke = new Option<bool>("--smoke") { Description = "200 websockets, 2 processes, 2 source addresses, a 3 s hold with 0.5-1 s batches: checks that it all runs." };
var markdown = new Option<FileInfo?>("--markdown") { Description = "Also write the results as a markdown page." };
var json = new Option<FileInfo?>("--json") { Description = "Also write the results as JSON." };
var before = new Option<FileInfo?>("--before") { Description = "An earlier run's --json (e.g. bench/results/scale-19k.json, before a change): the page compares the medians." };
var heapTypes = new Option<int>("--heap-types") { DefaultValueFactory = _ => 0, Description = "Also walk the server's heap (ClrMD, attaching to it) at the baseline and with every websocket open, and report this many types that grew most, per websocket (in the first round of --repeat)." };
var serverEnvironment = new Option<string>("--server-env") { DefaultValueFactory = _ => "", Description = "Runtime settings for the .NET servers, comma-separated NAME=VALUE (for example DOTNET_TieredPGO=0), to study their effect; the page lists them." };
var root = new RootCommand("WebSocketCodec scale test: many mostly idle websockets on one server process; handshake and round-trip times, failures by reason, and the server's memory per websocket after a forced compacting GC.")
{
    variants, gcModes, gcConcurrent, webSockets, clientProcesses, sources, hold, interval, concurrency, repeat, seed, smoke, markdown, json, heapTypes, before, serverEnvironment,
};
root.SetAction(async (parseResult, cancellation) =>
{
    string[] chosen = Split(parseResult.GetValue(variants)!);
    string[] modes = Split(parseResult.GetValue(gcModes)!);
    string[] range = parseResult.GetValue(interval)!.Split('-');
    string[] settings = Split(parseResult.GetValue(serverEnvironment)!);
    if (settings.Any(s => s.IndexOf('=') < 1))
    {
        Console.Error.WriteLine("--server-env: NAME=VALUE, comma-separated");
        return 2;
    }

    bool isSmoke = parseResult.GetValue(smoke);
    if (chosen.Except(available).Any() || modes.Except([ScaleRunner.Workstation, ScaleRunner.Server, ScaleRunner.WorkstationSmallGen0]).Any() || range.Length != 2
        || !double.TryParse(range[0], CultureInfo.InvariantCulture, out double min) || !double.TryParse(range[1], CultureInfo.InvariantCulture, out double max)
        || min <= 0 || max < min || parseResult.GetValue(webSockets) < 1 || parseResult.GetValue(clientProcesses) < 1)
    {
        Console.Error.WriteLine($"--variants from {string.Join(", ", available)}; --gc from workstation, server, workstation-gen0-4mib; --interval min-max seconds; --websockets and --client-processes at least 1");
        return 2;
    }

    var options = new ScaleOptions
    {
        Variants = chosen,
        GcModes = modes,
        GcConcurrent = parseResult.GetValue(gcConcurrent),
        WebSockets = isSmoke ? 200 : parseResult.GetValue(webSockets),
        ClientProcesses = isSmoke ? 2 : parseResult.GetValue(clientProcesses),
        SourcesPerClient = isSmoke ? 1 : parseResult.GetValue(sources),
        Hold = TimeSpan.FromSeconds(isSmoke ? 3 : parseResult.GetValue(hold)),
        MinInterval = TimeSpan.FromSeconds(isSmoke ? 0.5 : min),
        MaxInterval = TimeSpan.FromSeconds(isSmoke ? 1 : max),
        Concurrency = parseResult.GetValue(concurrency),
        Repeat = parseResult.GetValue(repeat),
        Seed = parseResult.GetValue(seed),
        HeapTypes = parseResult.GetValue(heapTypes),
        ServerEnvironment = settings.ToDictionary(s => s[..s.IndexOf('=')], s => s[(s.IndexOf('=') + 1)..]),
    };
    int share = (options.WebSockets + options.ClientProcesses - 1) / options.ClientProcesses;
    // Measured: a server process uses about 190 files of its own, and at the limit (19,806 websockets of 19,900 under
    // 20,000 files) it refused the rest and then aborted ("Out of memory.", exit 134), every variant alike.
    if (OpenFileLimit() is { } limit && (share + 200 > limit || options.WebSockets + 500 > limit))
    {
        Console.Error.WriteLine($"A process may open {limit} files here (ulimit -n): the server holds {options.WebSockets} sockets and each client process {share}; use fewer websockets or more --client-processes.");
        return 2;
    }

    List<ScaleResult>? earlier = null;
    if (parseResult.GetValue(before) is { } beforeFile)
    {
        if (!beforeFile.Exists)
        {
            Console.Error.WriteLine($"--before: {beforeFile.FullName} does not exist");
            return 2;
        }

        earlier = JsonSerializer.Deserialize<List<ScaleResult>>(await File.ReadAllTextAsync(beforeFile.FullName, cancellation));
    }

    Console.WriteLine($"# {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}");
    IReadOnlyList<ScaleResult> results = await ScaleRunner.RunAsync(options, line => Console.WriteLine($"{DateTime.Now:HH:mm:ss} {line}"), cancellation);
    if (parseResult.GetValue(markdown) is { } page)
    {
        string command = "dotnet run -c Release --project bench/WebSocketCodec.Scale -- " + string.Join(' ', args);
        await File.WriteAllTextAsync(page.FullName, WebSocketCodec.Bench.ResultsStamp.Current(command).StampPage(ScaleReport.ToMarkdown(results, options, command, earlier)), cancellation);
    }

    if (parseResult.GetValue(json) is { } file)
    {
        await File.WriteAllTextAsync(file.FullName, JsonSerializer.Serialize(results, new JsonSerializerOptions { WriteIndented = true }), cancellation);
    }

    return results.Any(r => r.FailureCount > 0) ? 1 : 0;
});

// Client process (internal): its share of the websockets; see ClientMode.
var client = new Command("client", "One client process of the load (started by the coordinator).") { Hidden = true };
var port = new Option<int>("--port") { Required = true };
var count = new Option<int>("--websockets") { Required = true };
var from = new Option<string>("--sources") { Required = true };
var clientSeed = new Option<int>("--seed");
var minInterval = new Option<double>("--min-interval") { DefaultValueFactory = _ => 15 };
var maxInterval = new Option<double>("--max-interval") { DefaultValueFactory = _ => 30 };
var clientConcurrency = new Option<int>("--concurrency") { DefaultValueFactory = _ => 64 };
var handshakeTimeout = new Option<double>("--handshake-timeout") { DefaultValueFactory = _ => 30 };
var path = new Option<string>("--path") { DefaultValueFactory = _ => "/" };
foreach (Option option in new Option[] { port, count, from, clientSeed, minInterval, maxInterval, clientConcurrency, handshakeTimeout, path })
{
    client.Options.Add(option);
}

client.SetAction((parseResult, _) => ClientMode.RunAsync(new ClientSettings
{
    Port = parseResult.GetValue(port),
    WebSockets = parseResult.GetValue(count),
    Sources = [.. Split(parseResult.GetValue(from)!).Select(IPAddress.Parse)],
    Seed = parseResult.GetValue(clientSeed),
    MinInterval = TimeSpan.FromSeconds(parseResult.GetValue(minInterval)),
    MaxInterval = TimeSpan.FromSeconds(parseResult.GetValue(maxInterval)),
    Concurrency = parseResult.GetValue(clientConcurrency),
    HandshakeTimeout = TimeSpan.FromSeconds(parseResult.GetValue(handshakeTimeout)),
    Path = parseResult.GetValue(path)!,
}));
root.Subcommands.Add(client);

return await root.Parse(args).InvokeAsync();

// The soft limit on open files (Linux), or null when unknown.
static long? OpenFileLimit()
{
    if (!OperatingSystem.IsLinux())
    {
        return null;
    }

    string? line = File.ReadLines("/proc/self/limits").FirstOrDefault(l => l.StartsWith("Max open files", StringComparison.Ordinal));
    string[]? parts = line?["Max open files".Length..].Split(' ', StringSplitOptions.RemoveEmptyEntries);
    return parts is { Length: > 0 } && long.TryParse(parts[0], CultureInfo.InvariantCulture, out long soft) ? soft : null;
}

static string[] Split(string value) => value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
