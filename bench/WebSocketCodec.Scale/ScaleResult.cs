namespace WebSocketCodec.Scale;

/// <summary>One variant under one GC mode: what the clients measured and what the server's memory did.</summary>
public sealed record ScaleResult
{
    public required string Variant { get; init; }

    /// <summary>The server's GC as it reported it: <c>workstation</c> or <c>server</c>, with <c>concurrent</c>.</summary>
    public required string Gc { get; init; }

    public bool GcConcurrent { get; init; }

    public int GcHeaps { get; init; }

    public int Run { get; init; }

    public int WebSockets { get; init; }

    /// <summary>Websockets open at the memory measurement.</summary>
    public int Open { get; init; }

    public int ClientProcesses { get; init; }

    public int SourceAddresses { get; init; }

    public Dictionary<string, int> Failures { get; init; } = [];

    public int FailureCount => Failures.Values.Sum();

    public double ConnectSeconds { get; init; }

    public double HandshakeP50Ms { get; init; }

    public double HandshakeP99Ms { get; init; }

    public double HoldSeconds { get; init; }

    public long Batches { get; init; }

    public long Sent { get; init; }

    public long Received { get; init; }

    public double RoundTripP50Ms { get; init; }

    public double RoundTripP99Ms { get; init; }

    public double RoundTripMaxMs { get; init; }

    public int ClosedCleanly { get; init; }

    /// <summary>The machine's 1-minute load average at the end of the hold (2 cores here: above 2, others compete).</summary>
    public double LoadAverage { get; init; }

    /// <summary>The managed heap's growth per websocket by type (with <see cref="ScaleOptions.HeapTypes"/>).</summary>
    public IReadOnlyList<HeapTypeGrowth> HeapGrowth { get; init; } = [];

    public long RssBaseline { get; init; }

    public long RssOpen { get; init; }

    public long RssClosed { get; init; }

    /// <summary>The server process's CPU time (user + system) from the baseline to the last websocket closed: the
    /// handshakes, the hold and the close exchanges, without the forced collection (and heap walk) of the measurement
    /// taken in between.</summary>
    public double ServerCpuSeconds { get; init; }

    public long HeapBaseline { get; init; }

    public long HeapOpen { get; init; }

    public long HeapClosed { get; init; }

    /// <summary>Methods the server's JIT compiled from the baseline to the open measurement (tier-ups included): near
    /// zero when the warm-up reached the steady state; null for a server not on .NET.</summary>
    public long? JitMethods { get; init; }

    /// <summary>(RSS open - RSS baseline) / open websockets, in KiB.</summary>
    public double RssKiBPerWebSocket => Open == 0 ? 0 : (RssOpen - RssBaseline) / 1024.0 / Open;

    /// <summary>(managed heap open - baseline) / open websockets, in KiB.</summary>
    public double HeapKiBPerWebSocket => Open == 0 ? 0 : (HeapOpen - HeapBaseline) / 1024.0 / Open;

    public override string ToString() => System.FormattableString.Invariant(
        $"{Variant} gc={Gc}{(GcConcurrent ? "+concurrent" : "")} heaps={GcHeaps} websockets={Open}/{WebSockets} failures={FailureCount} handshake p50={HandshakeP50Ms:F1}ms p99={HandshakeP99Ms:F1}ms roundtrip p50={RoundTripP50Ms:F2}ms p99={RoundTripP99Ms:F2}ms max={RoundTripMaxMs:F1}ms echoes={Received}/{Sent} server-cpu={ServerCpuSeconds:F1}s rss={RssBaseline / 1048576.0:F1}->{RssOpen / 1048576.0:F1}MiB {RssKiBPerWebSocket:F2}KiB/ws heap {HeapKiBPerWebSocket:F2}KiB/ws{(JitMethods is { } jit ? $" jit +{jit}" : "")}");
}
