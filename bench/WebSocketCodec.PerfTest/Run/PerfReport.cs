using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace WebSocketCodec.PerfTest;

/// <summary>Writes results as a GitHub markdown table: one row per variant, grouped by payload and connections, with
/// each variant's rate as a ratio to <c>aspnetcore</c> and to the raw byte echo measured in the same invocation.</summary>
public static class PerfReport
{
    public static string ToMarkdown(IReadOnlyList<PerfResult> results, string title, string command)
    {
        ArgumentNullException.ThrowIfNull(results);
        var text = new StringBuilder();
        CultureInfo c = CultureInfo.InvariantCulture;
        text.AppendLine(c, $"## {title}").AppendLine();
        text.AppendLine(c, $"`{command}`").AppendLine();
        text.AppendLine(c, $"{CpuModel()}, {ClientPinning.MachineCores} cores; server pinned to one core, load on the other; {RuntimeInformation.OSDescription}; .NET {Environment.Version}.").AppendLine();
        text.AppendLine("| payload | conns | tls | variant | msgs/s | × aspnetcore | × raw | p50 µs | p99 µs | gen0 | alloc B/msg |");
        text.AppendLine("|---:|---:|:---:|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var group in results.GroupBy(r => (r.Payload, r.Connections, r.Tls)))
        {
            double? aspnetcore = group.FirstOrDefault(r => r.Variant.StartsWith(Variants.AspNetCore, StringComparison.Ordinal))?.MessagesPerSecond;
            double? raw = group.FirstOrDefault(r => r.Variant is Variants.Raw or "raw-h2")?.MessagesPerSecond;
            foreach (PerfResult r in group)
            {
                text.AppendLine(c, $"| {r.Payload} | {r.Connections} | {(r.Tls ? "on" : "off")} | {r.Variant} | {r.MessagesPerSecond:N0} | {Ratio(r.MessagesPerSecond, aspnetcore)} | {Ratio(r.MessagesPerSecond, raw)} | {r.P50Microseconds:F0} | {r.P99Microseconds:F0} | {r.Gen0} | {r.AllocatedBytesPerMessage:F1} |");
            }
        }

        return text.ToString();
    }

    private static string Ratio(double value, double? baseline) =>
        baseline is > 0 ? (value / baseline.Value).ToString("F2", CultureInfo.InvariantCulture) : "";

    /// <summary>The CPU model (Linux: /proc/cpuinfo), to go with every figure.</summary>
    public static string CpuModel()
    {
        try
        {
            string? line = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal)) : null;
            return line?[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim() ?? RuntimeInformation.ProcessArchitecture.ToString();
        }
        catch (IOException)
        {
            return RuntimeInformation.ProcessArchitecture.ToString();
        }
    }
}
