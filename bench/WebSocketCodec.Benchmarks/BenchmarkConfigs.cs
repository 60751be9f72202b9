using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains.InProcess.NoEmit;

namespace WebSocketCodec.Benchmarks;

/// <summary>The configurations: a full run that exports reports, and a quick in-process validation.</summary>
public static class BenchmarkConfigs
{
    /// <summary>Where BenchmarkDotNet writes its artifacts (ignored by git); reports are copied to
    /// <c>bench/results</c>.</summary>
    public static string ArtifactsPath(string repositoryRoot) =>
        Path.Combine(repositoryRoot, "bench", "BenchmarkDotNet.Artifacts");

    /// <summary>Full runs: GitHub markdown and CSV reports, allocations, ratios against the baseline.</summary>
    public static IConfig Full(string repositoryRoot) => ManualConfig.CreateMinimumViable()
        .AddDiagnoser(MemoryDiagnoser.Default)
        .AddExporter(MarkdownExporter.GitHub, CsvExporter.Default)
        .AddColumn(new ThroughputColumn())
        .HideColumns(Column.Error, Column.StdDev, Column.RatioSD, Column.Median)
        .WithArtifactsPath(ArtifactsPath(repositoryRoot))
        .WithOptions(ConfigOptions.StopOnFirstError);

    /// <summary>Validation: every benchmark once, in this process (no child build), so a test can run it quickly.
    /// Each benchmark's <c>[GlobalSetup]</c> checks that ours and the baseline produce the same result.</summary>
    public static IConfig Validate() => ManualConfig.CreateEmpty()
        .AddJob(Job.Dry.WithToolchain(InProcessNoEmitToolchain.Instance).WithId("validate"))
        .AddLogger(BenchmarkDotNet.Loggers.NullLogger.Instance)
        .AddColumnProvider(DefaultColumnProviders.Instance)
        .AddValidator(BenchmarkDotNet.Validators.ExecutionValidator.FailOnError)
        .AddValidator(BenchmarkDotNet.Validators.BaselineValidator.FailOnError)
        .AddValidator(BenchmarkDotNet.Validators.ParamsAllValuesValidator.FailOnError)
        .WithArtifactsPath(Path.Combine(Path.GetTempPath(), "websocketcodec-bench-validate"))
        .WithOptions(ConfigOptions.DisableLogFile);
}
