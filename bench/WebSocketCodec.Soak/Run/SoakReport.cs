using System.Globalization;
using System.Text;

namespace WebSocketCodec.Soak;

/// <summary>The markdown report of a run's state: totals, per transport, length boundaries, pools, speed.</summary>
public static class SoakReport
{
    /// <summary>The page's stamp: the commits the segments ran at (with their segments when they differ), when the last
    /// one finished, and the machine the state recorded; "not recorded" for what an older state file lacks.</summary>
    internal static WebSocketCodec.Bench.ResultsStamp Stamp(SoakState state, string command)
    {
        ArgumentNullException.ThrowIfNull(state);
        const string none = WebSocketCodec.Bench.ResultsStamp.NotRecorded;
        var runs = new List<(string Commit, long First, long Last)>();
        foreach (SegmentResult segment in state.Segments)
        {
            string commit = segment.Commit.Length > 0 ? segment.Commit : none;
            if (runs.Count > 0 && runs[^1].Commit == commit)
            {
                runs[^1] = (commit, runs[^1].First, segment.Index);
            }
            else
            {
                runs.Add((commit, segment.Index, segment.Index));
            }
        }

        string commits = runs.Count switch
        {
            0 => WebSocketCodec.Bench.ResultsStamp.CurrentCommit() + " (no segment yet)",
            1 => runs[0].Commit,
            _ => string.Join(", ", runs.Select(r => r.First == r.Last ? $"{r.Commit} (segment {r.First})" : $"{r.Commit} (segments {r.First}-{r.Last})")),
        };

        // The state's machine line: "<n> cores, <OS>, .NET <version>".
        string[] machine = state.Machine.Split(", ");
        bool parsed = machine.Length >= 3 && machine[0].EndsWith(" cores", StringComparison.Ordinal);
        string finished = state.Segments.Count > 0 && state.Segments[^1].FinishedUtc.Length > 0 ? state.Segments[^1].FinishedUtc + " UTC" : none;
        return new WebSocketCodec.Bench.ResultsStamp(
            commits,
            finished,
            state.Cpu.Length > 0 ? state.Cpu : none,
            parsed ? machine[0][..^" cores".Length] : none,
            parsed ? machine[^1] : none,
            parsed ? string.Join(", ", machine[1..^1]) : none,
            command);
    }

    /// <summary>Renders <paramref name="state"/>; <paramref name="command"/> is the command that made it.</summary>
    public static string Render(SoakState state, string command)
    {
        ArgumentNullException.ThrowIfNull(state);
        var total = new SoakCounts();
        var byTransport = new Dictionary<string, SoakCounts>();
        var skipped = new SortedSet<string>(StringComparer.Ordinal);
        foreach (SegmentResult segment in state.Segments)
        {
            foreach ((string transport, SoakCounts counts) in segment.Transports)
            {
                total.Add(counts);
                (byTransport.TryGetValue(transport, out SoakCounts? t) ? t : byTransport[transport] = new SoakCounts()).Add(counts);
            }

            foreach ((string transport, string reason) in segment.Skipped)
            {
                skipped.Add($"{transport}: {reason}");
            }
        }

        double seconds = state.Segments.Sum(s => s.Seconds);
        long serverOutstanding = state.Segments.Sum(s => s.ServerPoolOutstanding);
        long clientOutstanding = state.Segments.Sum(s => s.ClientPoolOutstanding);
        bool complete = total.Frames >= state.Frames || state.Segments.Count >= state.SegmentCount;
        bool passed = total.Failures == 0 && serverOutstanding == 0 && clientOutstanding == 0;
        var text = new StringBuilder();
        Line(text, $"# Soak: {N(state.Frames)} frames, seed {state.Seed}");
        Line(text);
        text.Append(Stamp(state, command).ToMarkdown());
        Line(text, $"`{command}`");
        Line(text);
        Line(text, $"**{(complete ? "Complete" : "In progress")}: {state.Segments.Count} of {state.SegmentCount} segments, {N(total.Frames)} frames; "
            + $"{(passed ? "0 failures, pools balanced" : $"{N(total.Failures)} failures, pools outstanding: server {serverOutstanding}, client {clientOutstanding}")}.**");
        Line(text);
        Line(text, $"Machine: {state.Machine}. Segments of {N(state.SegmentFrames)} frames, {state.Connections} websockets each "
            + $"({string.Join(", ", state.Transports)}), against the sample echo server in process (HTTP/1.1 and HTTP/2 on one port; cleartext, and TLS with a self-signed certificate; "
            + "permessage-deflate accepted when offered, context takeover allowed, every echo compressed)"
            + (state.Transports.Any(SoakOptions.IsSpanNetty) ? " and the SpanNetty echo server (our codec on SpanNetty, cleartext, HTTP/1.1 and HTTP/2 on one port)." : "."));
        Line(text);
        Line(text, "| | total |");
        Line(text, "|---|---|");
        Row(text, "frames (sent + received)", N(total.Frames));
        Row(text, "frames sent (data + Ping)", N(total.FramesSent));
        Row(text, "frames received (echoes + Pong)", N(total.FramesReceived));
        Row(text, "messages sent / verified byte-exact", $"{N(total.Messages)} / {N(total.MessagesVerified)}");
        Row(text, "payload bytes sent / received", $"{N(total.BytesSent)} / {N(total.BytesReceived)}");
        Row(text, "text share", Percent(total.TextMessages, total.Messages));
        Row(text, "sizes 0-125 / 126-65,536 / 65,537-70,000 B", $"{Percent(total.SizeClasses[0], total.Messages)} / {Percent(total.SizeClasses[1], total.Messages)} / {Percent(total.SizeClasses[2], total.Messages)}");
        Row(text, "fragmented messages (share) / fragments", $"{N(total.FragmentedMessages)} ({Percent(total.FragmentedMessages, total.Messages)}) / {N(total.Fragments)}");
        Row(text, "text fragment cuts inside a UTF-8 character", N(total.SplitsInsideCharacter));
        Row(text, "Pings sent between fragments / answered / Pongs received", $"{N(total.PingsSent)} / {N(total.PingsAnswered)} / {N(total.PongsReceived)}");
        Row(text, "deflate: messages sent compressed / echoes received compressed (node's ws)", $"{N(total.CompressedSent)} / {N(total.CompressedReceived)}");
        Row(text, "failures", N(total.Failures));
        Row(text, "server pool: arrays rented / outstanding at the end of each segment", $"{N(state.Segments.Sum(s => s.ServerPoolRented))} / {serverOutstanding}");
        Row(text, "our clients' pool: arrays rented / outstanding", $"{N(state.Segments.Sum(s => s.ClientPoolRented))} / {clientOutstanding}");
        Row(text, "duration (sum of segments)", TimeSpan.FromSeconds(Math.Round(seconds)).ToString("c", CultureInfo.InvariantCulture));
        Row(text, "frames/s", seconds > 0 ? N((long)(total.Frames / seconds)) : "-");
        Row(text, "payload MB/s (both ways)", seconds > 0 ? ((total.BytesSent + total.BytesReceived) / seconds / 1e6).ToString("F1", CultureInfo.InvariantCulture) : "-");
        Line(text);
        Line(text, "Per transport (node's ws reports whole messages, so its frames received count one per echoed message, and its Pongs). "
            + "The transports run side by side: frames/s is a transport's frames over the time until its last websocket of each segment ended. Deflate transports (`-deflate`) must negotiate "
            + "permessage-deflate as offered, in turn context takeover both ways, none, none with a 9-bit server window; compressed: messages the client "
            + "sent compressed (ours: whole messages, the sender does not compress fragmented ones; node's ws: all, counted by a hook on its deflate) "
            + "/ echoes it received compressed (node's ws only: our session inflates before the listener sees a frame).");
        Line(text);
        Line(text, "| transport | websockets | frames | frames/s | messages verified | payload bytes (both ways) | fragmented | Pings / answered | compressed sent / received | failures |");
        Line(text, "|---|---|---|---|---|---|---|---|---|---|");
        foreach (string transport in SoakOptions.KnownTransports.Where(byTransport.ContainsKey))
        {
            SoakCounts t = byTransport[transport];
            double own = state.Segments.Sum(s => s.TransportSeconds.GetValueOrDefault(transport));
            string compressed = SoakOptions.IsDeflate(transport) ? $"{N(t.CompressedSent)} / {(SoakOptions.IsNode(transport) ? N(t.CompressedReceived) : "-")}" : "-";
            Line(text, $"| {transport} | {N(t.Connections)} | {N(t.Frames)} | {(own > 0 ? N((long)(t.Frames / own)) : "-")} | {N(t.MessagesVerified)} | {N(t.BytesSent + t.BytesReceived)} | {Percent(t.FragmentedMessages, t.Messages)} | {N(t.PingsSent)} / {N(t.PingsAnswered)} | {compressed} | {N(t.Failures)} |");
        }

        foreach (string reason in skipped)
        {
            Line(text, $"| skipped | {reason} | | | | | | | | |");
        }

        Line(text);
        Line(text, "Length boundaries (frames with exactly this payload length; each must reach 10,000 in the full run):");
        Line(text);
        Line(text, "| payload length | sent | received | |");
        Line(text, "|---|---|---|---|");
        for (int i = 0; i < SoakTraffic.Boundaries.Length; i++)
        {
            long both = total.BoundarySent[i] + total.BoundaryReceived[i];
            Line(text, $"| {N(SoakTraffic.Boundaries[i])} | {N(total.BoundarySent[i])} | {N(total.BoundaryReceived[i])} | {(Math.Min(total.BoundarySent[i], total.BoundaryReceived[i]) >= 10_000 ? "≥ 10,000 each way" : both > 0 ? "" : "none")} |");
        }

        if (total.FailureSamples.Count > 0)
        {
            Line(text);
            Line(text, "First failures:");
            Line(text);
            foreach (string failure in total.FailureSamples)
            {
                Line(text, $"- {failure}");
            }
        }

        Line(text);
        Line(text, "Per segment:");
        Line(text);
        Line(text, "| segment | frames | seconds | frames/s | failures | server pool out | client pool out |");
        Line(text, "|---|---|---|---|---|---|---|");
        foreach (SegmentResult segment in state.Segments)
        {
            SoakCounts t = segment.Total();
            Line(text, $"| {segment.Index} | {N(t.Frames)} | {segment.Seconds.ToString("F1", CultureInfo.InvariantCulture)} | {N((long)(t.Frames / Math.Max(segment.Seconds, 1e-9)))} | {N(t.Failures)} | {segment.ServerPoolOutstanding} | {segment.ClientPoolOutstanding} |");
        }

        return text.ToString();
    }

    private static void Row(StringBuilder text, string name, string value) => Line(text, $"| {name} | {value} |");

    private static void Line(StringBuilder text, string line = "") => text.Append(line).Append('\n');

    private static string N(long value) => value.ToString("N0", CultureInfo.InvariantCulture);

    private static string Percent(long part, long whole) =>
        whole == 0 ? "-" : (100.0 * part / whole).ToString("F2", CultureInfo.InvariantCulture) + " %";
}
