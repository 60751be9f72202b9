using System.Globalization;

namespace WebSocketCodec.PerfTest;

/// <summary>One variant's measured window.</summary>
public sealed record PerfResult(
    string Variant, int Payload, int Window, int Connections, bool Tls, double Seconds, long Messages,
    double MessagesPerSecond, double P50Microseconds, double P95Microseconds, double P99Microseconds,
    int Gen0, int Gen1, int Gen2, double AllocatedBytesPerMessage)
{
    /// <summary>The load client (see <see cref="LoadClients"/>).</summary>
    public string Client { get; init; } = LoadClients.Pipelined;

    /// <summary>What the server allocated in the measured window, by type (share of the runtime's allocation
    /// samples, one per about 100 KB), or <c>-</c>.</summary>
    public string AllocationSamples { get; init; } = "-";

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
        $"{Variant,-24} {(Client == LoadClients.Pipelined ? "" : $"client={Client} ")}payload={Payload} window={Window} conns={Connections} tls={(Tls ? "on" : "off")} gen0={Gen0} gen1={Gen1} gen2={Gen2} alloc/msg={AllocatedBytesPerMessage:F1} p95us={P95Microseconds:F0} msgs/s={MessagesPerSecond:F0} p50us={P50Microseconds:F0} p99us={P99Microseconds:F0}");
}
