using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;
using DotNetty.Common;
using WebSocketCodec.Benchmarks;

namespace WebSocketCodec.SpanNetty.Benchmarks;

/// <summary>Runs the SpanNetty benchmarks as the command line asks, or validates them (each once, in process).</summary>
public static class SpanNettyBenchmarkEntry
{
    /// <summary>The benchmark classes.</summary>
    public static readonly Type[] Benchmarks = [typeof(SpanNettyDecodeBenchmarks), typeof(SpanNettyEncodeBenchmarks), typeof(SpanNettyHttp2AdapterBenchmarks)];

    public static int Run(string[] args, Type[] benchmarks)
    {
        if (args.Contains("--validate"))
        {
            return Validate(Console.Out);
        }

        // Measured runs only: SpanNetty's leak detector (on by default, tracking one buffer in 128) off for both codecs
        // alike, as in a production server. Validation keeps the caller's level (Paranoid in the SpanNetty tests).
        // The pooled allocator keeps its per-thread caches, as on an event loop, though BenchmarkDotNet's thread is not
        // one of SpanNetty's: SpanNetty frees such a thread's cache about a second after its first use, and if that
        // races an allocation the run can spin (see Validate); rare, and a rerun goes through.
        ResourceLeakDetector.Level = ResourceLeakDetector.DetectionLevel.Disabled;
        string root = FindRepositoryRoot();
        // In process: a child build of this project would need the SpanNetty feed and -p:WithSpanNetty=true again.
        var config = ManualConfig.Create(BenchmarkConfigs.Full(root)).AddJob(Job.ShortRun.WithToolchain(InProcessEmitToolchain.Instance).WithId("ShortRun-InProcess"));
        DateTime started = DateTime.UtcNow;
        var summaries = BenchmarkSwitcher.FromTypes(benchmarks).Run(args, config).ToArray();
        ReportCopy.Run(root, "WebSocketCodec.SpanNetty.Benchmarks.", started, "dotnet run -c Release --project bench/WebSocketCodec.SpanNetty.Benchmarks -p:WithSpanNetty=true -- " + string.Join(' ', args), file => Path.GetFileName(file).Contains("SpanNetty", StringComparison.Ordinal));

        return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
    }

    /// <summary>Every benchmark once in process: 0 when all ran and their set-up checks passed.</summary>
    public static int Validate(TextWriter output)
    {
        // The benchmarks allocate on BenchmarkDotNet's thread, not one of SpanNetty's, whose cache SpanNetty's
        // ThreadDeathWatcher frees while it is in use, which made a validation spin forever in the cache's queue now
        // and then.
        TurnOffPerThreadCaches();
        int failures = 0;
        foreach (var summary in BenchmarkRunner.Run(Benchmarks, BenchmarkConfigs.Validate()))
        {
            failures += summary.ValidationErrors.Count(e => e.IsCritical) + summary.Reports.Count(r => !r.Success);
            output.WriteLine($"{summary.Title}: {summary.Reports.Length} benchmarks ran");
        }

        output.WriteLine(failures == 0 ? "benchmark validation passed" : $"benchmark validation: {failures} failures");
        return failures == 0 ? 0 : 1;
    }

    /// <summary>No per-thread caches in SpanNetty's pooled allocator, for a process that allocates on threads that are
    /// not SpanNetty's (see the README's SpanNetty section). Read once, by the allocator's static constructor: effective
    /// only before anything allocated from it.</summary>
    public static void TurnOffPerThreadCaches()
    {
        foreach (string cache in new[] { "tinyCacheSize", "smallCacheSize", "normalCacheSize" })
        {
            Environment.SetEnvironmentVariable("io.netty.allocator." + cache, "0");
        }
    }

    private static string FindRepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "WebSocketCodec.sln")))
            {
                return directory.FullName;
            }
        }

        return Directory.GetCurrentDirectory();
    }
}
