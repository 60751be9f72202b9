using WebSocketCodec.Benchmarks;

namespace WebSocketCodec.Bench.Tests.Benchmarks;

/// <summary>
/// Runs every BenchmarkDotNet benchmark once, in process, as <c>-- --validate</c> does: each must run without error,
/// and each class's setup checks that ours and the baseline (ManagedWebSocket, scalar masking, Utf8.IsValid) produce
/// the same result. No timing is asserted.
/// </summary>
public class BenchmarkValidationTests
{
    [Fact]
    public void EveryBenchmarkRunsAndAgreesWithItsBaseline()
    {
        var output = new StringWriter();
        int exitCode = BenchmarkEntry.Validate(output);
        string log = output.ToString();
        Assert.True(exitCode == 0, log);
        foreach (var type in BenchmarkEntry.Benchmarks)
        {
            Assert.Contains(type.Name, log, StringComparison.Ordinal);
        }

        Assert.DoesNotContain(" 0 benchmarks ran", log, StringComparison.Ordinal);
    }

    [Fact]
    public void FullRunConfigurationExportsMarkdownAndCsv()
    {
        var config = BenchmarkConfigs.Full(Path.GetTempPath());
        var exporters = config.GetExporters().Select(e => e.Name).ToArray();
        Assert.Contains(exporters, name => name.Contains("github", StringComparison.OrdinalIgnoreCase));
        Assert.Contains(exporters, name => name.Contains("csv", StringComparison.OrdinalIgnoreCase));
        Assert.Contains(config.GetDiagnosers(), d => d is BenchmarkDotNet.Diagnosers.MemoryDiagnoser);
    }
}
