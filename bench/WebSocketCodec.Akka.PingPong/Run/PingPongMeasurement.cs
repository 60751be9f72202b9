namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>How a run ended.</summary>
public enum RunStatus
{
    /// <summary>Every round trip completed: the rate is a result.</summary>
    Ok,

    /// <summary>The run timed out (setup or round trips): not a result, counted as a stall.</summary>
    Stalled,

    /// <summary>The run threw: not a result.</summary>
    Failed,
}

/// <summary>One run: a fresh pair of actor systems over one transport, <see cref="Clients"/> clients.</summary>
public sealed record PingPongMeasurement
{
    public required string Variant { get; init; }

    public required int Clients { get; init; }

    /// <summary>The repeat (1-based; 0 is the warm-up).</summary>
    public required int Repeat { get; init; }

    public required int RoundTrips { get; init; }

    public required RunStatus Status { get; init; }

    /// <summary>From the first primed send to the last reply.</summary>
    public double ElapsedMs { get; init; }

    /// <summary>clients × round trips × 2 / elapsed (Akka's RemotePingPong counts both directions).</summary>
    public double MessagesPerSecond { get; init; }

    /// <summary>Our transport's <c>Write</c> refusals in both systems during the run (see <see cref="RefusalProbe"/>);
    /// null when not observed (the other transports, or a run that did not complete).</summary>
    public long? Refusals { get; init; }

    /// <summary>The protocol of the first system's address (e.g. <c>akka.tcp</c>, <c>akka.ssl.tcp</c>, <c>akka.ws</c>,
    /// <c>akka.wss</c>): which transport really carried the run ("" when it did not start).</summary>
    public string Protocol { get; init; } = "";

    /// <summary>DotNetty's <c>akka.remote.dot-netty.tcp.batching.enabled</c> as the run's first system read it; null
    /// for the transports that are not DotNetty's (or a run that did not start).</summary>
    public bool? Batching { get; init; }

    /// <summary>The run's place in its repeat's order of variants (0-based; the order rotates by one each repeat).</summary>
    public int Position { get; init; }

    /// <summary>What stalled or failed ("" when <see cref="RunStatus.Ok"/>).</summary>
    public string Detail { get; init; } = "";

    /// <inheritdoc />
    public override string ToString() =>
        $"{Variant,-16} {Clients,3} clients {(Repeat == 0 ? "warm-up " : $"repeat {Repeat}")} ({Protocol}{(Batching is { } batching ? batching ? ", batching" : ", no batching" : "")}): " + (Status == RunStatus.Ok ? $"{MessagesPerSecond,10:N0} msgs/s ({ElapsedMs:N0} ms)" + (Refusals is { } refused ? $", {refused} refusals" : "") : $"{Status}: {Detail}");
}
