namespace WebSocketCodec.Broadcast.Client;

/// <summary>A client process's tally, sent to the driver as one JSON line.</summary>
public sealed record ClientReport
{
    /// <summary>Websockets that opened.</summary>
    public int Open { get; init; }

    /// <summary>Websockets that failed to open, or whose connection ended early.</summary>
    public int Failed { get; init; }

    /// <summary>The first failure's reason, if any.</summary>
    public string? FirstFailure { get; init; }

    /// <summary>Broadcast messages received, all websockets together.</summary>
    public long Received { get; init; }

    /// <summary>Broadcasts every websocket received.</summary>
    public int Complete { get; init; }

    /// <summary>The fewest and most broadcasts one websocket received.</summary>
    public int MinPerWebSocket { get; init; }

    /// <summary>See <see cref="MinPerWebSocket"/>.</summary>
    public int MaxPerWebSocket { get; init; }

    /// <summary>Broadcasts that arrived at a websocket out of its order (a gap or a repeat).</summary>
    public int OutOfOrder { get; init; }

    /// <summary>Frames that were not a broadcast (or a Ping).</summary>
    public int Unexpected { get; init; }
}
