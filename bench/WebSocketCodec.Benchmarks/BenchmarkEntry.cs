using BenchmarkDotNet.Running;

namespace WebSocketCodec.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project bench/WebSocketCodec.Benchmarks -- [BenchmarkDotNet arguments]</c> runs the
/// benchmarks (e.g. <c>--filter *</c>) and copies their GitHub markdown and CSV reports to <c>bench/results</c>;
/// <c>-- --validate</c> runs each benchmark once in process and fails on any error.
/// </summary>
public static class BenchmarkEntry
{
    /// <summary>All benchmark classes.</summary>
    public static readonly Type[] Benchmarks =
        [typeof(DecodeBenchmarks), typeof(EncodeBenchmarks), typeof(MaskingBenchmarks), typeof(Utf8Benchmarks), typeof(EchoBenchmarks), typeof(DeflateBenchmarks)];

    /// <summary>Runs as the command line asks; returns the process exit code.</summary>
    public static int Run(string[] args)
    {
        if (args.Contains("--validate"))
        {
            return Validate(Console.Out);
        }

        string root = FindRepositoryRoot();
        DateTime started = DateTime.UtcNow;
        var summaries = BenchmarkSwitcher.FromTypes(Benchmarks).Run(args, BenchmarkConfigs.Full(root)).ToArray();
        ReportCopy.Run(root, "WebSocketCodec.Benchmarks.", started, "dotnet run -c Release --project bench/WebSocketCodec.Benchmarks -- " + string.Join(' ', args));
        return summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success)) ? 1 : 0;
    }

    /// <summary>Runs every benchmark once in process; returns 0 when all ran and their self-checks passed.</summary>
    public static int Validate(TextWriter output)
    {
        int failures = 0;
        foreach (var summary in BenchmarkRunner.Run(Benchmarks, BenchmarkConfigs.Validate()))
        {
            foreach (var error in summary.ValidationErrors.Where(e => e.IsCritical))
            {
                output.WriteLine($"validation error: {error.Message}");
                failures++;
            }

            foreach (var report in summary.Reports.Where(r => !r.Success))
            {
                output.WriteLine($"failed: {report.BenchmarkCase.DisplayInfo}");
                failures++;
            }

            output.WriteLine($"{summary.Title}: {summary.Reports.Length} benchmarks ran");
        }

        output.WriteLine(failures == 0 ? "benchmark validation passed" : $"benchmark validation: {failures} failures");
        return failures == 0 ? 0 : 1;
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
