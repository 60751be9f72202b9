using System.Diagnostics.Metrics;

namespace WebSocketCodec.Akka;

/// <summary>The transport's instruments, on the library's meter (<see cref="WebSocketTelemetry.Name"/>).</summary>
internal static class AkkaTelemetry
{
    public static readonly Counter<long> Associations =
        WebSocketTelemetry.Meter.CreateCounter<long>("websocketcodec.akka.associations", "{association}", "Akka associations opened, by direction (inbound, outbound).");

    public static readonly Counter<long> WritesRefused =
        WebSocketTelemetry.Meter.CreateCounter<long>("websocketcodec.akka.writes.refused", "{write}", "Akka PDUs refused above the outbound high water mark (Akka buffers and retries them).");

    public static readonly KeyValuePair<string, object?> Inbound = new("direction", "inbound");

    public static readonly KeyValuePair<string, object?> Outbound = new("direction", "outbound");
}
