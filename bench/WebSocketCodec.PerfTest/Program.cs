using System.CommandLine;
using System.Text.Json;
using WebSocketCodec.PerfTest;

// Client (the default command): runs the variants side by side and prints one line per variant.
var variants = new Option<string>("--variants") { DefaultValueFactory = _ => "ours,aspnetcore,raw", Description = "Comma-separated: " + string.Join(", ", Variants.All) + ", or all." };
var payload = new Option<int>("--payload") { DefaultValueFactory = _ => 64, Description = "Payload bytes (8 to 65535; the first 8 carry the send time)." };
var seconds = new Option<int>("--seconds") { DefaultValueFactory = _ => 10, Description = "Measured seconds per variant." };
var warmup = new Option<int>("--warmup") { DefaultValueFactory = _ => 3, Description = "Warm-up seconds per variant." };
var window = new Option<int>("--window") { DefaultValueFactory = _ => 256, Description = "Frames in flight per connection, refilled at half." };
var connections = new Option<int>("--connections") { DefaultValueFactory = _ => 1, Description = "Connections." };
var tls = new Option<bool>("--tls") { Description = "TLS (self-signed certificate)." };
var h2 = new Option<bool>("--h2") { Description = "Websockets over HTTP/2 (extended CONNECT; every connection a stream of one HTTP/2 connection): " + string.Join(", ", Variants.OverHttp2) + " (raw-upgrade is then raw-h2)." };
var smoke = new Option<bool>("--smoke") { Description = "About a second per variant: checks that every variant runs; the numbers mean nothing." };
var json = new Option<FileInfo?>("--json") { Description = "Also write the results as JSON." };
var root = new RootCommand("WebSocketCodec perf test: a pipelined echo load from this process (one core) against each variant's server in its own process (another core).")
{
    variants, payload, seconds, warmup, window, connections, tls, h2, smoke, json,
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

    string[] unknown = chosen.Except(available).ToArray();
    int size = parseResult.GetValue(payload);
    if (unknown.Length > 0 || size is < 8 or > 65_535 || parseResult.GetValue(window) < 2 || parseResult.GetValue(connections) < 1)
    {
        Console.Error.WriteLine(unknown.Length > 0 ? $"unknown variants{(http2 ? " over HTTP/2" : "")}: {string.Join(", ", unknown)}" : "--payload must be 8-65535, --window at least 2, --connections at least 1");
        return 2;
    }

    bool isSmoke = parseResult.GetValue(smoke);
    var options = new PerfOptions
    {
        Variants = chosen,
        Payload = size,
        Window = parseResult.GetValue(window),
        Connections = parseResult.GetValue(connections),
        Tls = parseResult.GetValue(tls),
        Http2 = http2,
        Warmup = TimeSpan.FromSeconds(isSmoke ? 0.3 : parseResult.GetValue(warmup)),
        Duration = TimeSpan.FromSeconds(isSmoke ? 0.7 : parseResult.GetValue(seconds)),
        Pin = !isSmoke,
    };
    Console.WriteLine($"# {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}");
    var results = new List<PerfResult>();
    foreach (string variant in chosen)
    {
        Console.Error.Write($"running {variant}...\r");
        PerfResult result = await PerfRunner.RunVariantAsync(variant, options, cancellation);
        results.Add(result);
        Console.WriteLine(result);
    }

    if (parseResult.GetValue(json) is { } file)
    {
        await File.WriteAllTextAsync(file.FullName, JsonSerializer.Serialize(results, new JsonSerializerOptions { WriteIndented = true }), cancellation);
    }

    return 0;
});

// Server (internal): one variant's echo server; see PerfServer.
var serve = new Command("serve", "Runs one variant's server (used by the client; prints its port).") { Hidden = true };
var serveVariant = new Option<string>("--variant") { Required = true };
var serveTls = new Option<bool>("--tls");
var serveH2 = new Option<bool>("--h2");
serve.Options.Add(serveVariant);
serve.Options.Add(serveTls);
serve.Options.Add(serveH2);
serve.SetAction((parseResult, _) => PerfServer.RunAsync(parseResult.GetValue(serveVariant)!, parseResult.GetValue(serveTls), parseResult.GetValue(serveH2)));
root.Subcommands.Add(serve);

return await root.Parse(args).InvokeAsync();
