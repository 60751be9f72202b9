using System.Globalization;
using System.Text;

namespace WebSocketCodec.PerfTest;

/// <summary>The markdown table of <c>--deflate --memory</c> runs (see <see cref="DeflateScale"/>): per websocket count
/// and variant, the server's RSS and heap per primed websocket, then the steady-state window's server CPU and
/// allocations per message, with the server's core share and the load's CPU per message to show what bounded the
/// rate.</summary>
public static class DeflateMemoryReport
{
    public static string ToMarkdown(IReadOnlyList<PerfResult> results, string title, string command)
    {
        ArgumentNullException.ThrowIfNull(results);
        StringBuilder text = PerfReport.Header(title, command);
        CultureInfo c = CultureInfo.InvariantCulture;
        int runs = results.Count == 0 ? 1 : results.Max(r => r.Runs);
        text.AppendLine(c, $"Each figure is its own median over {runs} run(s), interleaved across the variants. Every websocket is opened and exchanges a few compressed messages both ways (so the server holds its inflater and deflater) before anything is measured. \"RSS/ws\" and \"heap/ws\": the server's resident set and managed heap after a forced compacting collection with every websocket primed and idle, less the same before any connected, per websocket. Then every websocket sends (window {(results.Count == 0 ? 0 : results[0].Window)}): after the warm-up, \"server µs/msg\" is the server's CPU time (user + system) per echoed message, \"alloc B/msg\" its allocations per message, \"server busy\" its CPU time over the window's length (100 %: the server bounded the rate), \"client µs/msg\" the load's CPU per message. \"set-up s\": opening and priming every websocket (not measured). The `aspnetcore` echo receives into a 4 KiB buffer per websocket, which its heap counts.").AppendLine();
        text.AppendLine("| conns | deflate | variant | RSS/ws | heap/ws | server µs/msg | × aspnetcore | alloc B/msg | msgs/s | server busy | client µs/msg | wire out B/msg | set-up s |");
        text.AppendLine("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var group in results.GroupBy(r => (r.Payload, r.Connections, r.Deflate)))
        {
            double? aspnetcore = group.FirstOrDefault(r => r.Variant == Variants.AspNetCore)?.ServerCpuMicrosecondsPerMessage;
            foreach (PerfResult r in group)
            {
                string ratio = aspnetcore is > 0 ? (r.ServerCpuMicrosecondsPerMessage / aspnetcore.Value).ToString("F2", c) : "";
                text.AppendLine(c, $"| {r.Connections:N0} | {r.Deflate} | {r.Variant} | {KiB(r.RssPerWebSocket)} | {KiB(r.HeapPerWebSocket)} | {r.ServerCpuMicrosecondsPerMessage:F1} | {ratio} | {r.AllocatedBytesPerMessage:F0} | {r.MessagesPerSecond:N0} | {r.ServerBusy:P0} | {r.ClientCpuMicrosecondsPerMessage:F1} | {r.WireBytesOutPerMessage:F1} | {r.SetupSeconds:F1} |");
            }
        }

        return text.ToString();
    }

    private static string KiB(double bytes) => (bytes / 1024).ToString("F1", CultureInfo.InvariantCulture) + " KiB";
}
