using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace WebSocketCodec.PerfTest;

/// <summary>Writes results as a GitHub markdown table: one row per variant, grouped by payload and connections, with
/// each variant's rate as a ratio to <c>aspnetcore</c> and to the raw byte echo measured in the same invocation.</summary>
public static class PerfReport
{
    /// <summary>A report's opening: the title, the command that made it and the machine it ran on.</summary>
    public static StringBuilder Header(string title, string command)
    {
        var text = new StringBuilder();
        CultureInfo c = CultureInfo.InvariantCulture;
        text.AppendLine(c, $"## {title}").AppendLine();
        text.AppendLine(c, $"`{command}`").AppendLine();
        text.AppendLine(c, $"{CpuModel()}, {ClientPinning.MachineCores} cores; server pinned to one core, load on the other; {RuntimeInformation.OSDescription}; .NET {Environment.Version}.").AppendLine();
        return text;
    }

    public static string ToMarkdown(IReadOnlyList<PerfResult> results, string title, string command)
    {
        ArgumentNullException.ThrowIfNull(results);
        StringBuilder text = PerfReport.Header(title, command);
        CultureInfo c = CultureInfo.InvariantCulture;
        int runs = results.Count == 0 ? 1 : results.Max(r => r.Runs);
        if (runs > 1)
        {
            text.AppendLine(c, $"Each row is the median of {runs} runs, interleaved across the variants; \"range\" is the slowest and fastest run.").AppendLine();
        }

        text.AppendLine("\"× limit\" is the rate over the byte echo on the same path: `raw` (Kestrel connection handler) for the connection-handler variants, `raw-upgrade` (Kestrel's upgrade stream) for the endpoint variants and `aspnetcore`, `raw-h2` over HTTP/2, `spannetty-raw` (a SpanNetty byte echo) for the SpanNetty variants, `spannetty-h2-raw` (a SpanNetty HTTP/2 stream byte echo) for the SpanNetty HTTP/2 variants, `c-epoll` (a C epoll byte echo, the machine's limit) for `bun`; a `+tuned` variant (Kestrel with `AddKestrelWebSocketTuning`) against the byte echo with the same tuning (`raw+tuned`, `raw-upgrade+tuned`). \"× bun\" and \"× c-epoll\" compare every row with those two when they ran in the same invocation; \"server µs/msg\" is the server process's CPU time per echoed message.").AppendLine();
        text.AppendLine("| payload | conns | tls | variant | msgs/s | range | × aspnetcore | × limit | × bun | × c-epoll | server µs/msg | p50 µs | p99 µs | gen0 | alloc B/msg |");
        text.AppendLine("|---:|---:|:---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        if (results.Any(r => r.Client != LoadClients.Pipelined))
        {
            text.AppendLine(c, $"Load client: {string.Join(", ", results.Select(r => r.Client).Distinct())} (one `SendAsync` per message, as .NET applications send).").AppendLine();
        }

        foreach (var group in results.GroupBy(r => (r.Payload, r.Connections, r.Tls)))
        {
            double? aspnetcore = group.FirstOrDefault(r => r.Variant.StartsWith(Variants.AspNetCore, StringComparison.Ordinal))?.MessagesPerSecond;
            double? bun = group.FirstOrDefault(r => r.Variant == Variants.Bun)?.MessagesPerSecond;
            double? epoll = group.FirstOrDefault(r => r.Variant == Variants.EpollEcho)?.MessagesPerSecond;
            foreach (PerfResult r in group)
            {
                double? limit = group.FirstOrDefault(b => b.Variant == LimitOf(r.Variant))?.MessagesPerSecond;
                string range = r.Runs > 1 ? string.Create(c, $"{r.MinMessagesPerSecond / 1e6:F2}-{r.MaxMessagesPerSecond / 1e6:F2} M") : "";
                text.AppendLine(c, $"| {r.Payload} | {r.Connections} | {(r.Tls ? "on" : "off")} | {r.Variant} | {r.MessagesPerSecond:N0} | {range} | {Ratio(r.MessagesPerSecond, aspnetcore)} | {Ratio(r.MessagesPerSecond, limit)} | {Ratio(r.MessagesPerSecond, bun)} | {Ratio(r.MessagesPerSecond, epoll)} | {(r.ServerCpuMicrosecondsPerMessage > 0 ? r.ServerCpuMicrosecondsPerMessage.ToString("F2", c) : "")} | {r.P50Microseconds:F0} | {r.P99Microseconds:F0} | {(r.IsManaged ? r.Gen0.ToString(c) : "n/a")} | {(r.IsManaged ? r.AllocatedBytesPerMessage.ToString("F1", c) : "n/a")} |");
            }
        }

        PerfResult[] allocating = [.. results.Where(r => r.AllocationSamples != "-")];
        if (allocating.Length > 0)
        {
            text.AppendLine().AppendLine("What allocated during the measured window (the runtime's allocation samples, one per about 100 KB, by type):").AppendLine();
            foreach (PerfResult r in allocating)
            {
                text.AppendLine(c, $"- {r.Variant}, {r.Payload} B, {r.Connections} conn.: {r.AllocationSamples.Replace(",", ", ", StringComparison.Ordinal)}");
            }
        }

        return text.ToString();
    }

    /// <summary>The byte echo on the same server path as <paramref name="variant"/> (with the same Kestrel tuning).</summary>
    public static string LimitOf(string variant) => Variants.SplitTuning(variant) is (var untuned, { } tuning) ? LimitOf(untuned) + tuning : variant switch
    {
        _ when Variants.OnSpanNettyHttp2.Contains(variant) => Variants.SpanNettyH2Raw,
        _ when variant.EndsWith("-h2", StringComparison.Ordinal) => "raw-h2",
        _ when Variants.OnSpanNetty.Contains(variant) => Variants.SpanNettyRaw,
        Variants.Ours or Variants.OursBulk or Variants.OursMessages or Variants.Raw => Variants.Raw,
        Variants.Bun or Variants.EpollEcho or Variants.Lean or Variants.LeanMessages => Variants.EpollEcho,
        _ => Variants.RawUpgrade,
    };

    private static string Ratio(double value, double? baseline) =>
        baseline is > 0 ? (value / baseline.Value).ToString("F2", CultureInfo.InvariantCulture) : "";

    /// <summary>The CPU model (Linux: /proc/cpuinfo), to go with every figure.</summary>
    public static string CpuModel() => WebSocketCodec.Bench.ResultsStamp.CpuModel();
}
