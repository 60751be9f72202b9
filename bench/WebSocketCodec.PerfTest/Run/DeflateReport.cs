using System.Globalization;
using System.Text;

namespace WebSocketCodec.PerfTest;

/// <summary>The markdown table of <c>--deflate</c> (and <c>--memory</c>) runs: per variant the rate, the server's CPU
/// time per echoed message (and its ratio to <c>aspnetcore</c>'s), the bytes on the wire per message both ways, the
/// server's allocations per message, the load's CPU per message, and with <c>--memory</c> the server's RSS and heap per
/// websocket.</summary>
public static class DeflateReport
{
    public static string ToMarkdown(IReadOnlyList<PerfResult> results, string title, string command)
    {
        ArgumentNullException.ThrowIfNull(results);
        StringBuilder text = PerfReport.Header(title, command);
        CultureInfo c = CultureInfo.InvariantCulture;
        int runs = results.Count == 0 ? 1 : results.Max(r => r.Runs);
        if (runs > 1)
        {
            text.AppendLine(c, $"Each row is the median of {runs} runs (by msgs/s), interleaved across the variants; \"range\" is the slowest and fastest run.").AppendLine();
        }

        text.AppendLine("\"server µs/msg\" is the server process's CPU time (user + system) in the measured window per echoed message; \"× aspnetcore\" its ratio to `aspnetcore`'s (lower is better). \"wire in\" is a client message's frame (compressed once per connection, no context), \"wire out\" the server's reply frames per message; \"compressed\" the share of replies with RSV1. \"client µs/msg\" is the load process's CPU per message. RSS and heap per websocket (with `--memory`): the server's after a forced compacting collection with every websocket open, less the same before any connected, divided by the websockets.").AppendLine();
        text.AppendLine("| payload | conns | deflate | variant | msgs/s | range | server µs/msg | × aspnetcore | wire in B/msg | wire out B/msg | compressed | alloc B/msg | gen0 | client µs/msg | RSS/ws | heap/ws |");
        text.AppendLine("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var group in results.GroupBy(r => (r.Payload, r.Connections, r.Deflate)))
        {
            double? aspnetcore = group.FirstOrDefault(r => r.Variant == Variants.AspNetCore)?.ServerCpuMicrosecondsPerMessage;
            foreach (PerfResult r in group)
            {
                string range = r.Runs > 1 ? string.Create(c, $"{r.MinMessagesPerSecond / 1e3:F0}-{r.MaxMessagesPerSecond / 1e3:F0} k") : "";
                string ratio = aspnetcore is > 0 ? (r.ServerCpuMicrosecondsPerMessage / aspnetcore.Value).ToString("F2", c) : "";
                string rss = r.Rss == 0 ? "" : Bytes(r.RssPerWebSocket);
                string heap = r.Rss == 0 ? "" : Bytes(r.HeapPerWebSocket);
                text.AppendLine(c, $"| {r.Payload} | {r.Connections} | {r.Deflate} | {r.Variant} | {r.MessagesPerSecond:N0} | {range} | {r.ServerCpuMicrosecondsPerMessage:F2} | {ratio} | {r.WireBytesInPerMessage:F1} | {r.WireBytesOutPerMessage:F1} | {r.CompressedReplyShare:P0} | {r.AllocatedBytesPerMessage:F1} | {r.Gen0} | {r.ClientCpuMicrosecondsPerMessage:F2} | {rss} | {heap} |");
            }
        }

        return text.ToString();
    }

    private static string Bytes(double value) =>
        Math.Abs(value) >= 10 * 1024 ? (value / 1024).ToString("F0", CultureInfo.InvariantCulture) + " KiB" : value.ToString("F0", CultureInfo.InvariantCulture) + " B";
}
