namespace WebSocketCodec.Broadcast.Client;

/// <summary>What the client process saw of one burst (its <c>burst</c> command), sent to the driver as one JSON line
/// after <c>burst </c>.</summary>
public sealed record BurstReport
{
    /// <summary>Messages each websocket published.</summary>
    public int Messages { get; init; }

    /// <summary>Websockets that published (the connected ones whose send succeeded).</summary>
    public int Senders { get; init; }

    /// <summary>Messages every websocket must have by the end of this burst (all bursts so far): the senders' messages.</summary>
    public long ExpectedPerWebSocket { get; init; }

    /// <summary>Websockets that had every message of this burst (and the ones before).</summary>
    public int Complete { get; init; }

    /// <summary>Websockets whose connection ended (any way), all bursts.</summary>
    public int Ended { get; init; }

    /// <summary>Websockets that received the server's Close, all bursts, and its codes with counts (<c>1008×3</c>).</summary>
    public int Closed { get; init; }

    public string CloseCodes { get; init; } = "";

    /// <summary>Relayed messages that arrived out of their sender's order (a gap or a repeat), all bursts.</summary>
    public int OutOfOrder { get; init; }

    /// <summary>Frames that were not a relayed message of this run (or a Ping), all bursts.</summary>
    public int Unexpected { get; init; }

    /// <summary>Relayed messages received in this burst, all websockets.</summary>
    public long Receipts { get; init; }

    /// <summary>Delivery latency per receipt (the receipt minus the sender's stamp), ns.</summary>
    public long LatencyP50Ns { get; init; }

    public long LatencyP99Ns { get; init; }

    public long LatencyMaxNs { get; init; }

    /// <summary>From the burst's start (before the first send) until the last websocket had every message, ns; until the
    /// bound when they did not all get there.</summary>
    public long TimeToAllNs { get; init; }

    /// <summary>The median websocket's time from the burst's start until it had every message, ns (complete ones).</summary>
    public long MemberCompleteP50Ns { get; init; }

    /// <summary>How long the send loop took (every websocket's one write of its messages), ns.</summary>
    public long SendNs { get; init; }

    /// <summary>Whether the bound passed before every websocket was complete or ended.</summary>
    public bool TimedOut { get; init; }

    /// <summary>The client process's CPU time (user + system) over the burst, ms.</summary>
    public double ClientCpuMs { get; init; }

    /// <summary>The first failure of a websocket (connection ended, send failed), if any.</summary>
    public string? FirstFailure { get; init; }

    /// <summary>When 10%, 50% and 90% of the burst's receipts had arrived, ns since its start (how evenly the server's
    /// output reached the websockets).</summary>
    public long ArrivalP10Ns { get; init; }

    public long ArrivalP50Ns { get; init; }

    public long ArrivalP90Ns { get; init; }

    /// <summary>The burst's start (<see cref="System.Diagnostics.Stopwatch"/>, before the first write).</summary>
    public long Start { get; init; }
}
