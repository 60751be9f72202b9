using System.Globalization;

namespace WebSocketCodec.PerfTest;

/// <summary>One variant's measured window.</summary>
public sealed record PerfResult(
    string Variant, int Payload, int Window, int Connections, bool Tls, double Seconds, long Messages,
    double MessagesPerSecond, double P50Microseconds, double P95Microseconds, double P99Microseconds,
    int Gen0, int Gen1, int Gen2, double AllocatedBytesPerMessage)
{
    /// <summary>Whether the server runs on .NET: its GC counts and allocation are printed only then (<c>gc=n/a</c> for
    /// Bun and the C echo).</summary>
    public bool IsManaged { get; init; } = true;

    /// <summary>The load client (see <see cref="LoadClients"/>).</summary>
    public string Client { get; init; } = LoadClients.Pipelined;

    /// <summary>What the server allocated in the measured window, by type (share of the runtime's allocation
    /// samples, one per about 100 KB), or <c>-</c>.</summary>
    public string AllocationSamples { get; init; } = "-";

    /// <summary>permessage-deflate: <c>off</c>, <c>takeover</c> (both sides keep context) or <c>no-takeover</c>.</summary>
    public string Deflate { get; init; } = "off";

    /// <summary>The server process's CPU time (user + system) in the measured window per echoed message, µs.</summary>
    public double ServerCpuMicrosecondsPerMessage { get; init; }

    /// <summary>This (load) process's CPU time in the measured window per echoed message, µs.</summary>
    public double ClientCpuMicrosecondsPerMessage { get; init; }

    /// <summary>Deflate mode: wire bytes of one message from the client (frame header, mask key, compressed payload).</summary>
    public double WireBytesInPerMessage { get; init; }

    /// <summary>Deflate mode: wire bytes of the server's replies per message (headers included).</summary>
    public double WireBytesOutPerMessage { get; init; }

    /// <summary>Deflate mode: the share of replies that came compressed (RSV1).</summary>
    public double CompressedReplyShare { get; init; }

    /// <summary>With <c>--memory</c>: the server's resident set (after a forced compacting collection) with every
    /// websocket open, less the same before any connected, per websocket, bytes.</summary>
    public double RssPerWebSocket { get; init; }

    /// <summary>With <c>--memory</c>: the same for the managed heap.</summary>
    public double HeapPerWebSocket { get; init; }

    /// <summary>With <c>--memory</c>: the server's resident set with every websocket open, bytes.</summary>
    public long Rss { get; init; }

    /// <summary>With <c>--deflate --memory</c>: the server's CPU time in the measured window over the window's length
    /// (1.0: its core was busy all along, so the server bounded the rate).</summary>
    public double ServerBusy { get; init; }

    /// <summary>With <c>--deflate --memory</c>: seconds to open and prime every websocket.</summary>
    public double SetupSeconds { get; init; }

    /// <summary>How many runs this result is the median of.</summary>
    public int Runs { get; init; } = 1;

    /// <summary>The slowest and fastest run's rate, when repeated.</summary>
    public double MinMessagesPerSecond { get; init; }

    /// <inheritdoc cref="MinMessagesPerSecond"/>
    public double MaxMessagesPerSecond { get; init; }

    /// <summary>The median run by rate (the lower middle one for an even count), with the spread of all runs.</summary>
    public static PerfResult Median(IReadOnlyList<PerfResult> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        PerfResult[] sorted = [.. runs.OrderBy(r => r.MessagesPerSecond)];
        return sorted[(sorted.Length - 1) / 2] with
        {
            Runs = sorted.Length,
            MinMessagesPerSecond = sorted[0].MessagesPerSecond,
            MaxMessagesPerSecond = sorted[^1].MessagesPerSecond,
        };
    }

    /// <summary>The report line; it ends with <c>msgs/s=&lt;n&gt; p50us=&lt;n&gt; p99us=&lt;n&gt;</c>.</summary>
    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{Variant,-24} {(Client == LoadClients.Pipelined ? "" : $"client={Client} ")}payload={Payload} window={Window} conns={Connections} tls={(Tls ? "on" : "off")} {(IsManaged ? $"gen0={Gen0} gen1={Gen1} gen2={Gen2} alloc/msg={AllocatedBytesPerMessage:F1}" : "gc=n/a")} {Extras()}p95us={P95Microseconds:F0} msgs/s={MessagesPerSecond:F0} p50us={P50Microseconds:F0} p99us={P99Microseconds:F0}");

    /// <summary>The deflate and memory fields, when measured; in the plain modes only the server's CPU per message (a
    /// steadier figure than the rate on a noisy machine: it does not count the time the server waited).</summary>
    private string Extras() => string.Create(CultureInfo.InvariantCulture,
        $"{(Deflate == "off" ? ServerCpuMicrosecondsPerMessage > 0 ? $"server-cpu-us/msg={ServerCpuMicrosecondsPerMessage:F3} " : "" : $"deflate={Deflate} server-cpu-us/msg={ServerCpuMicrosecondsPerMessage:F2} client-cpu-us/msg={ClientCpuMicrosecondsPerMessage:F2} wire-in/msg={WireBytesInPerMessage:F1} wire-out/msg={WireBytesOutPerMessage:F1} compressed={CompressedReplyShare:P0} ")}{(Rss == 0 ? "" : $"rss={Rss} rss/ws={RssPerWebSocket:F0} heap/ws={HeapPerWebSocket:F0} ")}{(ServerBusy == 0 ? "" : $"server-busy={ServerBusy:P0} setup-s={SetupSeconds:F1} ")}");

    /// <summary>For the memory table: the median run by rate, with each per-message and per-websocket figure replaced by
    /// its own median over the runs (the mean of the middle two for an even count).</summary>
    public static PerfResult MedianOfEach(IReadOnlyList<PerfResult> runs)
    {
        ArgumentNullException.ThrowIfNull(runs);
        static double Mid(IEnumerable<double> values)
        {
            double[] sorted = [.. values.Order()];
            return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
        }

        return Median(runs) with
        {
            MessagesPerSecond = Mid(runs.Select(r => r.MessagesPerSecond)),
            ServerCpuMicrosecondsPerMessage = Mid(runs.Select(r => r.ServerCpuMicrosecondsPerMessage)),
            ClientCpuMicrosecondsPerMessage = Mid(runs.Select(r => r.ClientCpuMicrosecondsPerMessage)),
            AllocatedBytesPerMessage = Mid(runs.Select(r => r.AllocatedBytesPerMessage)),
            WireBytesOutPerMessage = Mid(runs.Select(r => r.WireBytesOutPerMessage)),
            RssPerWebSocket = Mid(runs.Select(r => r.RssPerWebSocket)),
            HeapPerWebSocket = Mid(runs.Select(r => r.HeapPerWebSocket)),
            ServerBusy = Mid(runs.Select(r => r.ServerBusy)),
            SetupSeconds = Mid(runs.Select(r => r.SetupSeconds)),
        };
    }
}
