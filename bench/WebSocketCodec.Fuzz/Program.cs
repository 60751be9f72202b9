using System.CommandLine;
using WebSocketCodec.Fuzz;

var inputs = new Option<long>("--inputs") { DefaultValueFactory = _ => 100_000, Description = "Inputs in all, shared evenly by the targets chosen." };
var seed = new Option<ulong>("--seed") { DefaultValueFactory = _ => 22, Description = "The seed: input i of a target is made from (seed, target, i) alone." };
var target = new Option<string>("--target") { DefaultValueFactory = _ => "all", Description = $"{string.Join(", ", FuzzTargets.Names)} or all (frames and session: the decoder and the session; http1, http101, h2connect, h2response: the handshakes; negotiation and inflate: permessage-deflate; akka: the Akka.Remote association reader)." };
target.AcceptOnlyFromAmong([.. FuzzTargets.Names, "all"]);
var replay = new Option<long?>("--replay") { Description = "Run only this input index of --target (with --seed) and print it." };
var markdown = new Option<FileInfo?>("--markdown") { Description = "Also write the report as markdown to this file." };
var violations = new Option<DirectoryInfo?>("--violations") { DefaultValueFactory = _ => new DirectoryInfo("fuzz-violations"), Description = "Where each violation found is written (one file each)." };
var stall = new Option<int>("--stall-seconds") { DefaultValueFactory = _ => 60, Description = "An input still running after this long is reported as a hang (exit code 3)." };
var afl = new Option<bool>("--afl") { Description = "Serve --target to afl-fuzz through SharpFuzz (afl/run.sh runs this; the input comes from afl-fuzz)." };
var dumpSeeds = new Option<DirectoryInfo?>("--dump-seeds") { Description = "Write the seed corpus of --target to this directory, one file each, and exit." };
var stamp = new Option<string?>("--stamp") { Description = "Print the results stamp (commit, date, CPU, cores, runtime, OS) for a page made by this command, and exit (afl/run.sh uses it)." };
var root = new RootCommand("WebSocketCodec fuzzer: seeded mutations of the conformance cases through the frame decoder, the session and the handshake parsers, checked by oracles.")
{
    inputs, seed, target, replay, markdown, violations, stall, afl, dumpSeeds, stamp,
};
root.SetAction(parseResult =>
{
    if (parseResult.GetValue(stamp) is { } stampCommand)
    {
        Console.Write(WebSocketCodec.Bench.ResultsStamp.Current(stampCommand).ToMarkdown());
        return 0;
    }

    ulong s = parseResult.GetValue(seed);
    string chosen = parseResult.GetValue(target)!;
    string[] names = chosen == "all" ? FuzzTargets.Names : [chosen];
    if ((parseResult.GetValue(afl) || parseResult.GetValue(dumpSeeds) is not null) && names.Length != 1)
    {
        Console.Error.WriteLine("--afl and --dump-seeds need one --target");
        return 2;
    }

    if (parseResult.GetValue(dumpSeeds) is { } seedDirectory)
    {
        Console.WriteLine($"{AflHarness.DumpSeeds(names[0], seedDirectory)} seeds of {names[0]} written to {seedDirectory.FullName}");
        return 0;
    }

    if (parseResult.GetValue(afl))
    {
        AflHarness.Run(names[0]);
        return 0;
    }

    var runner = new FuzzRunner(s, Console.Out, parseResult.GetValue(violations));
    if (parseResult.GetValue(replay) is { } index)
    {
        if (names.Length != 1)
        {
            Console.Error.WriteLine("--replay needs one --target");
            return 2;
        }

        IFuzzTarget one = FuzzTargets.Create(names[0]);
        FuzzRng rng = FuzzRng.ForInput(s, one.Name, index);
        (CorpusEntry entry, byte[] input) = one.Mutator.Next(rng);
        Console.WriteLine($"target={one.Name} seed={s} index={index} entry={entry.Name}\ninput ({input.Length} B): {Convert.ToHexString(input)}");
        FuzzViolation? violation = runner.RunOne(one, index);
        Console.WriteLine(violation is null ? "no violation" : violation.ToString());
        return violation is null ? 0 : 1;
    }

    long total = parseResult.GetValue(inputs);
    using var watchdog = new Watchdog(runner, Console.Out, s, TimeSpan.FromSeconds(parseResult.GetValue(stall)));
    var results = new List<TargetResult>();
    for (int i = 0; i < names.Length; i++)
    {
        long count = total / names.Length + (i < total % names.Length ? 1 : 0);
        IFuzzTarget t = FuzzTargets.Create(names[i]);
        Console.WriteLine($"{t.Name}: {count:N0} inputs, seed {s}");
        TargetResult result = runner.Run(t, count);
        Console.WriteLine($"{t.Name}: {result.Inputs:N0} inputs in {result.Elapsed.TotalSeconds:F1} s ({result.InputsPerSecond:N0}/s), {result.ViolationCount:N0} violations");
        results.Add(result);
    }

    string report = MarkdownReport.Render(results, s, "dotnet run -c Release --project bench/WebSocketCodec.Fuzz -- " + string.Join(' ', args));
    if (parseResult.GetValue(markdown) is { } file)
    {
        File.WriteAllText(file.FullName, report);
        Console.WriteLine($"report written to {file.FullName}");
    }

    return results.Sum(r => r.ViolationCount) == 0 ? 0 : 1;
});
return root.Parse(args).Invoke();
