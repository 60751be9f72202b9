namespace WebSocketCodec.Broadcast.Run;

/// <summary>What one invocation measures: every (variant, payload, websocket count), <see cref="Repeat"/> times,
/// variants interleaved.</summary>
public sealed record BroadcastOptions
{
    public IReadOnlyList<string> Variants { get; init; } = BroadcastVariants.All;

    /// <summary>Payload sizes in bytes (at least 12: the stamp and the sequence number).</summary>
    public IReadOnlyList<int> Payloads { get; init; } = [64, 1024];

    public IReadOnlyList<int> WebSockets { get; init; } = [1_000, 10_000];

    /// <summary>Measured broadcasts per run.</summary>
    public int Broadcasts { get; init; } = 200;

    /// <summary>Broadcasts before the measured ones (code compiled, pools and buffers primed).</summary>
    public int WarmUp { get; init; } = 50;

    public int Repeat { get; init; } = 3;

    /// <summary>Stalled websockets (that never read) beside the reading ones, one value per run, interleaved innermost
    /// (after the variant): e.g. [0, 10] runs each variant without and with 10.</summary>
    public IReadOnlyList<int> Stalled { get; init; } = [0];

    /// <summary>Variants (of <see cref="Variants"/>) run in the first repeat only: the loops, to show they are held by
    /// a stalled member, without spending every repeat on it.</summary>
    public IReadOnlyList<string> Once { get; init; } = [];

    /// <summary>How long the server lets one broadcast run before it reports the run as held (a loop waiting on a
    /// stalled member); the driver waits for a delivery this long plus 2 s when stalled members are present.</summary>
    public TimeSpan HoldBound { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Handshakes under way at once in the client process.</summary>
    public int Concurrency { get; init; } = 64;

    /// <summary>Whether the servers sample the types they allocate (the page lists them; it allocates a little itself).</summary>
    public bool AllocationTypes { get; init; }

    /// <summary>How long one broadcast may take to reach every websocket before the run fails.</summary>
    public TimeSpan DeliveryTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>The burst mode (above 0): messages each websocket publishes at once, relayed by the server to the whole
    /// group (group variants only; see <see cref="BurstRunner"/>). 0: the server broadcasts, the websockets only read.</summary>
    public int Burst { get; init; }

    /// <summary>The burst mode: messages each websocket publishes in a warm-up burst before the measured one (checked,
    /// not timed).</summary>
    public int BurstWarmUp { get; init; } = 1;

    /// <summary>The burst mode: how long a burst may take to reach every websocket before the run fails.</summary>
    public TimeSpan BurstTimeout { get; init; } = TimeSpan.FromSeconds(120);
}
