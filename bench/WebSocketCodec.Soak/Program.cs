using System.CommandLine;
using WebSocketCodec.Soak;

var frames = new Option<long>("--frames") { DefaultValueFactory = _ => 100_000_000, Description = "Frames in the whole run (sent and received, data and control)." };
var seed = new Option<ulong>("--seed") { DefaultValueFactory = _ => 1, Description = "The seed of all traffic." };
var segment = new Option<long>("--segment") { DefaultValueFactory = _ => 5_000_000, Description = "Frames per segment (fresh websockets, then the pool check; the state file records each)." };
var connections = new Option<int>("--connections") { DefaultValueFactory = _ => 2 * SoakOptions.AllTransports.Count, Description = "Websockets per segment, spread over the transports in turn (default: two per transport of the build)." };
var window = new Option<int>("--window") { DefaultValueFactory = _ => 16, Description = "Messages in flight per websocket." };
var transports = new Option<string>("--transports") { DefaultValueFactory = _ => string.Join(',', SoakOptions.AllTransports), Description = "Comma-separated: " + string.Join(", ", SoakOptions.AllTransports) + "." };
var state = new Option<FileInfo?>("--state") { Description = "The state file: completed segments are recorded there and a rerun continues after them." };
var report = new Option<FileInfo?>("--report") { Description = "The markdown report (default: the state file's name with .md)." };
var reportOnly = new Option<bool>("--report-only") { Description = "Only write the report from the state file." };
var smoke = new Option<bool>("--smoke") { Description = "A few seconds: 6,000 frames over every transport, no state file." };
var root = new RootCommand("WebSocketCodec soak: our client (HTTP/1.1 and HTTP/2, cleartext and TLS) and node's ws send seeded random messages (fragments cut inside UTF-8 characters, Pings between them, every length boundary) to our echo server in this process; every echo and Pong is verified and the pools must balance.")
{
    frames, seed, segment, connections, window, transports, state, report, reportOnly, smoke,
};
root.SetAction(async (parse, cancellation) =>
{
    bool isSmoke = parse.GetValue(smoke);
    string[] chosen = parse.GetValue(transports)!.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
    string? statePath = isSmoke ? null : parse.GetValue(state)?.FullName;
    var options = new SoakOptions
    {
        Frames = isSmoke ? 6_000 : parse.GetValue(frames),
        Seed = parse.GetValue(seed),
        SegmentFrames = isSmoke ? 6_000 : parse.GetValue(segment),
        Connections = isSmoke ? SoakOptions.AllTransports.Count : parse.GetValue(connections),
        Window = parse.GetValue(window),
        BoundaryEvery = isSmoke ? 2 : 16,
        Transports = chosen,
        StatePath = statePath,
        ReportPath = parse.GetValue(report)?.FullName ?? (statePath is null ? null : Path.ChangeExtension(statePath, ".md")),
    };
    if (chosen.Length == 0 || chosen.Except(SoakOptions.AllTransports).Any() || options.Frames < 1 || options.SegmentFrames < 1 || options.Connections < 1 || options.Window < 1)
    {
        Console.Error.WriteLine($"--transports takes {string.Join(", ", SoakOptions.AllTransports)}; --frames, --segment, --connections and --window at least 1");
        return 2;
    }

    string command = "dotnet run -c Release --project bench/WebSocketCodec.Soak -- " + string.Join(' ', args);
    if (parse.GetValue(reportOnly))
    {
        if (statePath is null || !File.Exists(statePath) || options.ReportPath is null)
        {
            Console.Error.WriteLine("--report-only needs an existing --state file");
            return 2;
        }

        SoakRun.WriteReport(options, SoakState.Load(statePath), command);
        Console.WriteLine($"wrote {options.ReportPath}");
        return 0;
    }

    SoakState result = await SoakRun.RunAsync(options, command, line => Console.WriteLine($"{DateTime.Now:HH:mm:ss} {line}"), cancellation);
    bool passed = result.Segments.All(s => s.Passed);
    Console.WriteLine(passed ? $"passed: {result.CompletedFrames:N0} frames" : "FAILED (see the failures above and the report)");
    if (isSmoke)
    {
        Console.Write(SoakReport.Render(result, command));
    }

    return passed ? 0 : 1;
});

return await root.Parse(args).InvokeAsync();
