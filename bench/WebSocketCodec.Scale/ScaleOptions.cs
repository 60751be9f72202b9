using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Scale;

/// <summary>What one invocation measures.</summary>
public sealed record ScaleOptions
{
    /// <summary>The servers (the perf tool's variants), run in turn.</summary>
    public IReadOnlyList<string> Variants { get; init; } = [PerfTest.Variants.OursEndpointMessages, PerfTest.Variants.Ours, PerfTest.Variants.RawUpgrade, PerfTest.Variants.AspNetCore];

    /// <summary>The servers' GC modes: <c>workstation</c>, <c>server</c>.</summary>
    public IReadOnlyList<string> GcModes { get; init; } = [ScaleRunner.Workstation, ScaleRunner.Server];

    /// <summary>Whether the servers' GC is concurrent (background), the ASP.NET Core default.</summary>
    public bool GcConcurrent { get; init; } = true;

    public int WebSockets { get; init; } = 19_000;

    /// <summary>Client processes sharing the websockets (one process may hold 20,000 open files here).</summary>
    public int ClientProcesses { get; init; } = 2;

    /// <summary>Source addresses per client process (0: one per 5,000 of its websockets).</summary>
    public int SourcesPerClient { get; init; }

    public TimeSpan Hold { get; init; } = TimeSpan.FromSeconds(40);

    /// <summary>The time between a websocket's batches, drawn between these two.</summary>
    public TimeSpan MinInterval { get; init; } = TimeSpan.FromSeconds(15);

    public TimeSpan MaxInterval { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>Handshakes under way at once per client process.</summary>
    public int Concurrency { get; init; } = 64;

    /// <summary>Repeats of the whole set (variants x GC modes), interleaved.</summary>
    public int Repeat { get; init; } = 1;

    public int Seed { get; init; } = 1;

    /// <summary>When above 0, the server's heap is walked by type (ClrMD) at the baseline and with every websocket
    /// open, and this many types that grew most are reported per websocket.</summary>
    public int HeapTypes { get; init; }

    /// <summary>Environment variables for the .NET servers (runtime settings under study), beside the GC mode's.</summary>
    public IReadOnlyDictionary<string, string> ServerEnvironment { get; init; } = new Dictionary<string, string>();
}
