using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace WebSocketCodec.Benchmarks;

/// <summary>GB/s (10^9 bytes per second) for benchmarks with a <c>Length</c> parameter: Length / mean nanoseconds.</summary>
internal sealed class ThroughputColumn : IColumn
{
    public string Id => nameof(ThroughputColumn);

    public string ColumnName => "GB/s";

    public bool AlwaysShow => false;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Bytes processed per nanosecond (GB/s)";

    public bool IsAvailable(Summary summary) =>
        summary.BenchmarksCases.Any(c => c.Parameters.Items.Any(p => p.Name == "Length"));

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) =>
        GetValue(summary, benchmarkCase, SummaryStyle.Default);

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
    {
        var length = benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == "Length")?.Value;
        var statistics = summary[benchmarkCase]?.ResultStatistics;
        if (length is not int bytes || statistics is null || statistics.Mean <= 0)
        {
            return "-";
        }

        return (bytes / statistics.Mean).ToString("0.00", System.Globalization.CultureInfo.InvariantCulture);
    }
}
