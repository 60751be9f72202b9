using System.Diagnostics.Metrics;

namespace WebSocketCodec.Akka;

/// <summary>The transport's instruments, under the library's meter name (<see cref="WebSocketTelemetry.Name"/>: a
/// listener of that meter sees them with the core's).</summary>
internal static class AkkaTelemetry
{
    private static readonly Meter Meter = new(WebSocketTelemetry.Name);

    public static readonly Counter<long> Associations =
        Meter.CreateCounter<long>("websocketcodec.akka.associations", "{association}", "Akka associations opened, by direction (inbound, outbound).");

    public static readonly Counter<long> WritesRefused =
        Meter.CreateCounter<long>("websocketcodec.akka.writes.refused", "{write}", "Akka PDUs refused above the outbound high water mark (Akka buffers and retries them).");

    public static readonly KeyValuePair<string, object?> Inbound = new("direction", "inbound");

    public static readonly KeyValuePair<string, object?> Outbound = new("direction", "outbound");
}
