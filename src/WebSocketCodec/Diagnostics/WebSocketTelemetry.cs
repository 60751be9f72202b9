using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace WebSocketCodec;

/// <summary>The names under which websockets report metrics (<see cref="System.Diagnostics.Metrics.Meter"/> <c>WebSocketCodec</c>) and traces
/// (<see cref="ActivitySource"/> <c>WebSocketCodec</c>, one activity per websocket): pass <see cref="Name"/> to
/// OpenTelemetry's <c>AddMeter</c> and <c>AddSource</c> to collect them. Or listen with <c>dotnet-counters monitor
/// --counters WebSocketCodec</c>.</summary>
public static class WebSocketTelemetry
{
    /// <summary>The meter's and the activity source's name.</summary>
    public const string Name = "WebSocketCodec";

    internal static readonly ActivitySource Source = new(Name);
    internal static readonly Meter Meter = new(Name);

    internal static readonly UpDownCounter<long> ActiveConnections =
        Meter.CreateUpDownCounter<long>("websocketcodec.connections.active", "{connection}", "Websockets open now.");

    internal static readonly Counter<long> Connections =
        Meter.CreateCounter<long>("websocketcodec.connections", "{connection}", "Websockets opened.");

    internal static readonly Counter<long> FramesReceived =
        Meter.CreateCounter<long>("websocketcodec.frames.received", "{frame}", "Data frames received.");

    internal static readonly Counter<long> MessagesReceived =
        Meter.CreateCounter<long>("websocketcodec.messages.received", "{message}", "Data messages received (final frames).");

    internal static readonly Counter<long> BytesReceived =
        Meter.CreateCounter<long>("websocketcodec.bytes.received", "By", "Websocket bytes received, headers included.");

    internal static readonly Counter<long> BytesSent =
        Meter.CreateCounter<long>("websocketcodec.bytes.sent", "By", "Websocket bytes flushed, headers included.");

    internal static readonly Counter<long> Closes =
        Meter.CreateCounter<long>("websocketcodec.closes", "{connection}", "Websockets ended, by close status and initiator.");

    internal static readonly Counter<long> Violations =
        Meter.CreateCounter<long>("websocketcodec.violations", "{violation}", "Protocol violations by the peer, by rule.");

    internal static readonly Counter<long> SlowConsumers =
        Meter.CreateCounter<long>("websocketcodec.slow_consumers", "{connection}", "Websockets given up because the peer read too slowly.");

    internal static readonly Counter<long> Broadcasts =
        Meter.CreateCounter<long>("websocketcodec.broadcasts", "{broadcast}", "Messages broadcast to a group.");

    internal static readonly Counter<long> BroadcastRecipients =
        Meter.CreateCounter<long>("websocketcodec.broadcast.recipients", "{websocket}", "Group members that took a broadcast message.");

    internal static readonly Counter<long> BroadcastSkipped =
        Meter.CreateCounter<long>("websocketcodec.broadcast.skipped", "{websocket}", "Group members that missed a broadcast message: above their high water mark, or in a fragmented message of their own.");

    internal static readonly Counter<long> BroadcastClosed =
        Meter.CreateCounter<long>("websocketcodec.broadcast.closed", "{websocket}", "Group members closed by the slow-member policy or the broadcast budget (counted by each group that had them).");

    internal static readonly ObservableGauge<long> BroadcastQueued =
        Meter.CreateObservableGauge("websocketcodec.broadcast.queued", static () => BroadcastBudget.Shared.QueuedBytes, "By",
            "Bytes that group messages waiting for their members hold now, against the process's broadcast budget.");
}
