namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>What one invocation measures: every (client count, variant), <see cref="Repeat"/> times, interleaved.</summary>
public sealed record PingPongOptions
{
    /// <summary>The transports, in the order each repeat runs them.</summary>
    public IReadOnlyList<string> Variants { get; init; } = PingPongVariants.All;

    /// <summary>Client actors per run (each with its own echo actor).</summary>
    public IReadOnlyList<int> Clients { get; init; } = [1, 5, 10, 15, 20, 25, 30];

    /// <summary>Round trips per client (Akka's RemotePingPong: 100,000).</summary>
    public int RoundTrips { get; init; } = 100_000;

    /// <summary>Messages in flight per client (Akka's RemotePingPong primes 50).</summary>
    public int Window { get; init; } = 50;

    public int Repeat { get; init; } = 5;

    /// <summary>Round trips of one unmeasured 1-client run per variant before the first repeat (0: none).</summary>
    public int WarmUpRoundTrips { get; init; } = 10_000;

    /// <summary>HOCON over every variant's (e.g. <c>akka.remote.websocket.outbound-high-water-mark = 64 KiB</c>).</summary>
    public string ExtraConfig { get; init; } = "";

    /// <summary>How long the systems may take to start and to show every echo actor alive.</summary>
    public TimeSpan SetupTimeout { get; init; } = TimeSpan.FromSeconds(20);

    /// <summary>How long the measured round trips may take before the run counts as stalled.</summary>
    public TimeSpan RunTimeout { get; init; } = TimeSpan.FromSeconds(120);
}
