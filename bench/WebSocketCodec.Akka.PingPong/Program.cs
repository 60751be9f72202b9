using System.CommandLine;
using System.Globalization;
using WebSocketCodec.Akka.PingPong;
using WebSocketCodec.Akka.PingPong.Run;

// RemotePingPong over Akka.Remote transports, interleaved in one invocation; see PingPongRunner and PingPongRun.
var variants = new Option<string>("--variants") { DefaultValueFactory = _ => string.Join(',', PingPongVariants.All), Description = "Comma-separated: " + string.Join(", ", PingPongVariants.All) + "." };
var clients = new Option<string>("--clients") { DefaultValueFactory = _ => "1,5,10,15,20,25,30", Description = "Client counts, comma-separated (one echo actor per client)." };
var roundTrips = new Option<int>("--round-trips") { DefaultValueFactory = _ => 100_000, Description = "Round trips per client (Akka's RemotePingPong: 100,000)." };
var window = new Option<int>("--window") { DefaultValueFactory = _ => 50, Description = "Messages in flight per client (Akka's RemotePingPong primes 50)." };
var repeat = new Option<int>("--repeat") { DefaultValueFactory = _ => 5, Description = "Runs of the whole set, variants interleaved; the page reports medians." };
var warmUp = new Option<int>("--warmup-round-trips") { DefaultValueFactory = _ => 10_000, Description = "Round trips of one unmeasured 1-client run per variant first (0: none)." };
var runTimeout = new Option<int>("--timeout") { DefaultValueFactory = _ => 120, Description = "Seconds one run's round trips may take before it counts as a stall (setup: 20 s)." };
var markdown = new Option<string>("--markdown") { DefaultValueFactory = _ => "bench/results/akka-pingpong.md", Description = "The page; the raw runs go beside it (same name, .json and .csv)." };
var hocon = new Option<string>("--hocon") { DefaultValueFactory = _ => "", Description = "HOCON over every variant's, e.g. \"akka.remote.websocket.outbound-high-water-mark = 64 KiB\" (the page names it)." };
var smoke = new Option<bool>("--smoke") { Description = "1 client, 2,000 round trips, one repeat, no warm-up, each variant whose transport loads here (or those of --variants); exits 1 if one fails (a DotNetty TLS stall is reported, not a failure)." };
var root = new RootCommand("RemotePingPong: two Akka.NET actor systems in one process over 127.0.0.1, N clients doing round trips with remote-deployed echo actors, over DotNetty TCP (plain, TLS), our websocket transport (HTTP/1.1, HTTP/2, TLS) and an in-process loopback.")
{
    variants, clients, roundTrips, window, repeat, warmUp, runTimeout, markdown, hocon, smoke,
};
root.SetAction(async (parseResult, cancellation) =>
{
    bool isSmoke = parseResult.GetValue(smoke);
    bool variantsGiven = parseResult.GetResult(variants) is { Implicit: false };
    string[] chosen = Split(parseResult.GetValue(variants)!);
    int[] counts = [.. Split(parseResult.GetValue(clients)!).Select(s => int.Parse(s, CultureInfo.InvariantCulture))];
    if (chosen.Length == 0 || chosen.Except(PingPongVariants.All).Any() || counts.Length == 0 || counts.Any(c => c < 1)
        || parseResult.GetValue(roundTrips) < 1 || parseResult.GetValue(window) < 1 || parseResult.GetValue(repeat) < 1 || parseResult.GetValue(runTimeout) < 1)
    {
        Console.Error.WriteLine($"--variants from {string.Join(", ", PingPongVariants.All)}; --clients, --round-trips, --window, --repeat, --timeout at least 1");
        return 2;
    }

    if (isSmoke && !variantsGiven)
    {
        foreach (string missing in chosen.Where(v => !PingPongRunner.IsAvailable(v)))
        {
            Console.WriteLine($"# {missing}: WebSocketCodec.Akka.WebSocketTransport does not load here: skipped");
        }

        chosen = [.. chosen.Where(PingPongRunner.IsAvailable)];
    }

    var options = new PingPongOptions
    {
        Variants = chosen,
        Clients = isSmoke ? [1] : counts,
        RoundTrips = isSmoke ? 2_000 : parseResult.GetValue(roundTrips),
        Window = parseResult.GetValue(window),
        Repeat = isSmoke ? 1 : parseResult.GetValue(repeat),
        WarmUpRoundTrips = isSmoke ? 0 : parseResult.GetValue(warmUp),
        RunTimeout = TimeSpan.FromSeconds(isSmoke ? 30 : parseResult.GetValue(runTimeout)),
        ExtraConfig = parseResult.GetValue(hocon)!,
    };

    Console.WriteLine($"# {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}, server GC {System.Runtime.GCSettings.IsServerGC}");
    IReadOnlyList<PingPongMeasurement> results = await PingPongRunner.RunAsync(options, line => Console.WriteLine($"{DateTime.Now:HH:mm:ss} {line}"), cancellation);
    if (isSmoke)
    {
        PingPongMeasurement[] failed = [.. results.Where(r => !PingPongRunner.PassesSmoke(r))];
        Console.WriteLine(failed.Length == 0 ? "smoke: every variant ran" : "smoke: FAILED: " + string.Join("; ", failed.Select(r => r.ToString())));
        return failed.Length == 0 ? 0 : 1;
    }

    string page = parseResult.GetValue(markdown)!;
    await PingPongReport.WriteAsync(page, results, options, "dotnet run -c Release --project bench/WebSocketCodec.Akka.PingPong -- " + string.Join(' ', args), cancellation);
    Console.WriteLine($"wrote {page} and its .json and .csv");
    return 0;
});

return await root.Parse(args).InvokeAsync();

static string[] Split(string value) => value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
