namespace WebSocketCodec.Scale;

/// <summary>One JSON line a client process writes to the coordinator: <c>connected</c> (after every handshake),
/// <c>held</c> (after the hold, every echo in or given up), <c>closed</c> (after the close exchanges).</summary>
internal sealed record ClientReport
{
    public required string Event { get; init; }

    /// <summary>Websockets open now.</summary>
    public int Open { get; init; }

    /// <summary>Failures so far, by reason.</summary>
    public Dictionary<string, int> Failures { get; init; } = [];

    /// <summary>Handshake times (connect included): [value in nanoseconds, count] pairs of an HdrHistogram.</summary>
    public long[][]? Handshakes { get; init; }

    /// <summary>Round trips during the hold: [value in nanoseconds, count] pairs of an HdrHistogram.</summary>
    public long[][]? RoundTrips { get; init; }

    public long Batches { get; init; }

    public long Sent { get; init; }

    public long Received { get; init; }

    /// <summary>Close exchanges completed.</summary>
    public int ClosedCleanly { get; init; }

    /// <summary>Seconds the step took.</summary>
    public double Seconds { get; init; }
}
