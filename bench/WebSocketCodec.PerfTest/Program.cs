using System.CommandLine;
using System.Text.Json;
using WebSocketCodec.PerfTest;

// Client (the default command): runs the variants side by side and prints one line per variant.
var variants = new Option<string>("--variants") { DefaultValueFactory = _ => "ours,aspnetcore,raw", Description = "Comma-separated: " + string.Join(", ", Variants.All) + ", or all; SpanNetty (optional build): " + string.Join(", ", Variants.OnSpanNetty) + ", or spannetty; with --h2: " + string.Join(", ", Variants.OnSpanNettyHttp2) + " (spannetty); any Kestrel variant with +tuned (AddKestrelWebSocketTuning: 64 KiB pinned blocks, or PERF_BLOCK_SIZE bytes) or +tuned-inline (and inline scheduling); outside .NET, over HTTP/1.1: " + string.Join(", ", Variants.Peers) + " (bun also with --tls), or peers; the lean transport (Linux, HTTP/1.1, TLS too): " + string.Join(", ", Variants.OnLean) + "; peers (Bun installed from npm and the C echo compiled with gcc on first use)." };
var payload = new Option<string>("--payload") { DefaultValueFactory = _ => "64", Description = "Payload bytes, one or a comma-separated list (8 to 65535; the first 8 carry the send time)." };
var seconds = new Option<int>("--seconds") { DefaultValueFactory = _ => 10, Description = "Measured seconds per variant." };
var warmup = new Option<int>("--warmup") { DefaultValueFactory = _ => 3, Description = "Warm-up seconds per variant." };
var window = new Option<int>("--window") { DefaultValueFactory = _ => 256, Description = "Frames in flight per connection, refilled at half." };
var connections = new Option<string>("--connections") { DefaultValueFactory = _ => "1", Description = "Connections (over HTTP/2: websockets on one connection), one or a comma-separated list." };
var markdown = new Option<FileInfo?>("--markdown") { Description = "Also write the results as a markdown table (with ratios to aspnetcore and raw)." };
var tls = new Option<bool>("--tls") { Description = "TLS (self-signed certificate)." };
var h2 = new Option<bool>("--h2") { Description = "Websockets over HTTP/2 (extended CONNECT; every connection a stream of one HTTP/2 connection, so --connections 1,10 is 1 and 10 streams per connection): " + string.Join(", ", Variants.OverHttp2) + " (raw-upgrade is then raw-h2), and on SpanNetty " + string.Join(", ", Variants.OnSpanNettyHttp2) + "." };
var smoke = new Option<bool>("--smoke") { Description = "About a second per variant: checks that every variant runs; the numbers mean nothing." };
var client = new Option<string>("--client") { DefaultValueFactory = _ => LoadClients.Pipelined, Description = "The load: pipelined (our frame pump, every variant) or clientwebsocket (.NET's ClientWebSocket, one SendAsync per message; websocket servers only)." };
var spanNettyTransport = new Option<string>("--transport") { DefaultValueFactory = _ => "socket", Description = "SpanNetty's transport for the SpanNetty variants: socket or libuv." };
spanNettyTransport.AcceptOnlyFromAmong("socket", "libuv");
var repeat = new Option<int>("--repeat") { DefaultValueFactory = _ => 1, Description = "Runs of each variant, interleaved (variant A, B, A, B...); the median run by msgs/s is reported. Runs of one process pair vary by up to ±15% here, so repeat for tables." };
var baseline = new Option<FileInfo?>("--baseline") { Description = "Another build's WebSocketCodec.PerfTest.dll (e.g. the previous main's): every chosen variant also runs from it, as <variant>@baseline, interleaved, for no-loss checks." };
var json = new Option<FileInfo?>("--json") { Description = "Also write the results as JSON." };
var deflate = new Option<bool>("--deflate") { Description = "permessage-deflate: the client offers it and sends JSON text compressed once per connection; the servers (" + string.Join(", ", DeflateMode.Variants) + ") compress their echoes at zlib's level 6; reports server and client CPU per message and wire bytes per message." };
var noContextTakeover = new Option<bool>("--no-context-takeover") { Description = "With --deflate: offer server_no_context_takeover and client_no_context_takeover." };
var memory = new Option<bool>("--memory") { Description = "Also take the server's memory (forced compacting GC) before connecting and with every websocket open: RSS and heap per websocket. With --deflate: every websocket is opened and exchanges --prime compressed messages first, the memory is taken with all of them primed and idle, then all send and the window measures the steady state (see DeflateScale); medians of each figure." };
var deflateLevel = new Option<string>("--deflate-level") { DefaultValueFactory = _ => DeflateMode.Optimal, Description = "With --deflate: our variants' level, optimal (zlib's 6, as ASP.NET Core's fixed level) or fastest (zlib's 1, our default); ours then report as <variant>/fastest." };
deflateLevel.AcceptOnlyFromAmong(DeflateMode.Optimal, DeflateMode.Fastest);
var prime = new Option<int>("--prime") { DefaultValueFactory = _ => 4, Description = "With --deflate --memory: compressed messages each websocket exchanges before the memory is taken." };
var root = new RootCommand("WebSocketCodec perf test: a pipelined echo load from this process (one core) against each variant's server in its own process (another core).")
{
    variants, payload, seconds, warmup, window, connections, tls, h2, client, smoke, repeat, json, markdown, spanNettyTransport, baseline, deflate, noContextTakeover, memory, deflateLevel, prime,
};
root.SetAction(async (parseResult, cancellation) =>
{
    string[] chosen = parseResult.GetValue(variants)!.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    bool http2 = parseResult.GetValue(h2);
    IReadOnlyList<string> available = http2 ? Variants.OverHttp2 : Variants.All;
    if (chosen is ["all"])
    {
        chosen = [.. available];
    }

    chosen = [.. chosen.SelectMany(v => v == "spannetty" ? (http2 ? Variants.OnSpanNettyHttp2 : Variants.OnSpanNetty) : v == "peers" ? Variants.Peers.Where(p => !parseResult.GetValue(tls) || PeerServers.ServesTls(p)) : [v])];
    available = [.. available, .. http2 ? Variants.OnSpanNettyHttp2 : Variants.OnSpanNetty, .. http2 ? [] : Variants.Peers.Where(v => !parseResult.GetValue(tls) || PeerServers.ServesTls(v))];
    available = [.. available, .. available.Where(Variants.All.Contains).SelectMany(v => new[] { v + Variants.Tuned, v + Variants.TunedInline })];
    available = [.. available, .. http2 ? [] : Variants.OnLean];

    string load = parseResult.GetValue(client)!;
    if (!LoadClients.All.Contains(load))
    {
        Console.Error.WriteLine($"--client must be one of: {string.Join(", ", LoadClients.All)}");
        return 2;
    }

    if (load == LoadClients.ClientWebSocket)
    {
        // A byte echo returns the client's masked frames, which a websocket client must refuse.
        available = available.Where(v => v is not (Variants.Raw or Variants.RawUpgrade or Variants.SpanNettyRaw or Variants.SpanNettyH2Raw or Variants.EpollEcho)).ToArray();
        if (parseResult.GetValue(variants) == "all")
        {
            chosen = [.. available.Where(v => !Variants.IsSpanNetty(v))];
        }
    }

    string[] unknown = chosen.Except(available).ToArray();
    int[]? sizes = ParseList(parseResult.GetValue(payload)!);
    int[]? connectionCounts = ParseList(parseResult.GetValue(connections)!);
    if (unknown.Length > 0 || sizes is null || sizes.Any(s => s is < 8 or > 65_535) || parseResult.GetValue(window) < 2 || parseResult.GetValue(repeat) is < 1 or > 99 || connectionCounts is null || connectionCounts.Any(n => n < 1))
    {
        Console.Error.WriteLine(unknown.Length > 0 ? $"unknown variants{(http2 ? " over HTTP/2" : "")}{(parseResult.GetValue(tls) ? " with TLS" : "")}{(load == LoadClients.ClientWebSocket ? " with ClientWebSocket" : "")}: {string.Join(", ", unknown)}" : "--payload must be 8-65535, --window at least 2, --connections at least 1, --repeat 1-99");
        return 2;
    }

    bool compress = parseResult.GetValue(deflate);
    if (compress)
    {
        string[] refused = [.. chosen.Select(DeflateMode.Refusal).OfType<string>()];
        if (refused.Length > 0 || http2 || parseResult.GetValue(tls) || load != LoadClients.Pipelined)
        {
            Console.Error.WriteLine(refused.Length > 0 ? string.Join(Environment.NewLine, refused) : "--deflate runs over HTTP/1.1 without TLS with the pipelined client only, for now");
            return 2;
        }
    }
    else if (parseResult.GetValue(noContextTakeover) || parseResult.GetValue(deflateLevel) != DeflateMode.Optimal)
    {
        Console.Error.WriteLine("--no-context-takeover and --deflate-level go with --deflate");
        return 2;
    }

    if (parseResult.GetValue(baseline) is { } other)
    {
        if (!other.Exists)
        {
            Console.Error.WriteLine($"--baseline: {other.FullName} does not exist");
            return 2;
        }

        ServerProcess.BaselineAssembly = other.FullName;
        chosen = [.. chosen.SelectMany(v => new[] { v, v + ServerProcess.BaselineSuffix })];
    }

    bool isSmoke = parseResult.GetValue(smoke);
    if (!isSmoke && ClientPinning.ShouldRestart)
    {
        return await ClientPinning.RunPinnedAsync(args, core: 1, cancellation);
    }

    var options = new PerfOptions
    {
        Variants = chosen,
        Window = parseResult.GetValue(window),
        Tls = parseResult.GetValue(tls),
        Http2 = http2,
        Warmup = TimeSpan.FromSeconds(isSmoke ? 0.3 : parseResult.GetValue(warmup)),
        Duration = TimeSpan.FromSeconds(isSmoke ? 0.7 : parseResult.GetValue(seconds)),
        Pin = !isSmoke,
        Client = load,
        SpanNettyTransport = parseResult.GetValue(spanNettyTransport)!,
        Deflate = compress,
        ContextTakeover = !parseResult.GetValue(noContextTakeover),
        Memory = parseResult.GetValue(memory),
        DeflateLevel = parseResult.GetValue(deflateLevel)!,
        PrimeMessages = Math.Max(1, parseResult.GetValue(prime)),
    };
    bool scale = compress && options.Memory; // one row per median of each figure, and the memory table
    Console.WriteLine($"# {ClientPinning.MachineCores} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}");
    var results = new List<PerfResult>();
    var everyRun = new List<PerfResult>();
    int runs = parseResult.GetValue(repeat);
    int total = sizes.Length * connectionCounts.Length * chosen.Length * runs, done = 0;
    foreach (int size in sizes)
    {
        foreach (int count in connectionCounts)
        {
            var runsByVariant = chosen.ToDictionary(v => v, _ => new List<PerfResult>());
            for (int run = 1; run <= runs; run++)
            {
                foreach (string variant in chosen)
                {
                    Console.Error.Write($"[{++done}/{total}] {variant}, {size} B, {count} connection(s)...\r");
                    PerfResult result = await PerfRunner.RunVariantAsync(variant, options with { Payload = size, Connections = count }, cancellation);
                    runsByVariant[variant].Add(result);
                    everyRun.Add(result);
                    Console.WriteLine(runs == 1 ? result.ToString() : $"# run {run}: {result}");
                }
            }

            if (runs > 1)
            {
                foreach (string variant in chosen)
                {
                    PerfResult median = scale ? PerfResult.MedianOfEach(runsByVariant[variant]) : PerfResult.Median(runsByVariant[variant]);
                    results.Add(median);
                    Console.WriteLine(median);
                }
            }
            else
            {
                results.AddRange(chosen.Select(v => runsByVariant[v][0]));
            }
        }
    }

    if (parseResult.GetValue(markdown) is { } table)
    {
        string title = $"Echo over {(http2 ? "HTTP/2" : "HTTP/1.1")}{(options.Tls ? ", TLS" : "")}, window {options.Window}";
        string command = "dotnet run -c Release --project bench/WebSocketCodec.PerfTest -- " + string.Join(' ', args);
        await File.WriteAllTextAsync(table.FullName, WebSocketCodec.Bench.ResultsStamp.Current(command).StampPage(scale
            ? DeflateMemoryReport.ToMarkdown(results, title + $", permessage-deflate {(options.ContextTakeover ? "with" : "without")} context takeover, JSON text", command)
            : compress || options.Memory
            ? DeflateReport.ToMarkdown(results, title + (compress ? $", permessage-deflate {(options.ContextTakeover ? "with" : "without")} context takeover, JSON text" : ""), command)
            : PerfReport.ToMarkdown(results, title, command)), cancellation);
    }

    if (parseResult.GetValue(json) is { } file)
    {
        await File.WriteAllTextAsync(file.FullName, scale ? JsonSerializer.Serialize(new { Medians = results, Runs = everyRun }, new JsonSerializerOptions { WriteIndented = true }) : JsonSerializer.Serialize(results, new JsonSerializerOptions { WriteIndented = true }), cancellation);
    }

    return 0;
});

// Server (internal): one variant's echo server; see PerfServer.
var serve = new Command("serve", "Runs one variant's server (used by the client; prints its port).") { Hidden = true };
var serveVariant = new Option<string>("--variant") { Required = true };
var serveTls = new Option<bool>("--tls");
var serveH2 = new Option<bool>("--h2");
var serveDeflate = new Option<bool>("--deflate");
var serveLevel = new Option<string>("--deflate-level") { DefaultValueFactory = _ => DeflateMode.Optimal };
var serveReceiveBuffer = new Option<int>("--receive-buffer");
serve.Options.Add(serveDeflate);
serve.Options.Add(serveLevel);
serve.Options.Add(serveReceiveBuffer);
serve.Options.Add(serveVariant);
serve.Options.Add(serveTls);
serve.Options.Add(serveH2);
serve.SetAction((parseResult, _) => PerfServer.RunAsync(parseResult.GetValue(serveVariant)!, parseResult.GetValue(serveTls), parseResult.GetValue(serveH2), parseResult.GetValue(serveDeflate),
    parseResult.GetValue(serveLevel)!, parseResult.GetValue(serveReceiveBuffer)));
root.Subcommands.Add(serve);

return await root.Parse(args).InvokeAsync();

static int[]? ParseList(string value)
{
    var numbers = new List<int>();
    foreach (string part in value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
    {
        if (!int.TryParse(part, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int number))
        {
            return null;
        }

        numbers.Add(number);
    }

    return numbers.Count == 0 ? null : [.. numbers];
}
