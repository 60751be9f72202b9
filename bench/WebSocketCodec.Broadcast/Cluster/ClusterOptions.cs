namespace WebSocketCodec.Broadcast.Cluster;

/// <summary>The cluster mode's settings (<c>broadcast cluster</c>).</summary>
public sealed record ClusterOptions
{
    /// <summary>Reading websockets per node (the single-node baseline holds all of them on its one node).</summary>
    public int WebSocketsPerNode { get; init; } = 1000;

    /// <summary>Cluster nodes (the baseline has one).</summary>
    public int Nodes { get; init; } = 3;

    /// <summary>Payload sizes in bytes.</summary>
    public IReadOnlyList<int> Payloads { get; init; } = [64, 1024];

    /// <summary>Messages per second each publisher sends (one publisher per node; the baseline has as many on its node).</summary>
    public int Rate { get; init; } = 5;

    /// <summary>How long the publishers send, measured.</summary>
    public TimeSpan Duration { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>How long the idle rate of gossip and heartbeats between nodes is measured before the run.</summary>
    public TimeSpan IdleWindow { get; init; } = TimeSpan.FromSeconds(5);

    /// <summary>Runs of the whole set, variants interleaved.</summary>
    public int Repeat { get; init; } = 3;

    /// <summary>How long the last message may take to reach every member.</summary>
    public TimeSpan DrainBound { get; init; } = TimeSpan.FromSeconds(60);
}
