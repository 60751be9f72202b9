using HdrHistogram;

namespace WebSocketCodec.PerfTest;

/// <summary>One websocket of the load: keeps a window of frames in flight and records each echo's round trip.</summary>
internal interface ILoadConnection : IAsyncDisposable
{
    /// <summary>Whether echoes count toward <see cref="Received"/> and <see cref="Latency"/>.</summary>
    bool Measuring { get; set; }

    /// <summary>Echoes received while measuring.</summary>
    long Received { get; }

    /// <summary>Echoes received since the start, warm-up included: the runner's warm-up lasts until each connection has
    /// one, so a slow start (JIT, TLS handshake on a loaded machine) never leaves the measured window empty.</summary>
    long Echoed { get; }

    /// <summary>Round trips recorded while measuring (nanoseconds).</summary>
    LongHistogram Latency { get; }

    /// <summary>Whether the receive loop has ended: before the runner stops the connection, the server closed or broke
    /// it.</summary>
    bool Ended { get; }

    /// <summary>Where the loops are, for a stuck run's report.</summary>
    string State { get; }

    /// <summary>Runs the send and receive loops until cancelled.</summary>
    Task RunAsync(CancellationToken cancellationToken);
}
