using System.Globalization;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>One run of the burst mode: one group variant, every websocket publishing <see cref="Messages"/> messages at
/// once, relayed by the server to the whole group (a chat).</summary>
public sealed record BurstMeasurement
{
    public required string Variant { get; init; }

    public int PayloadBytes { get; init; }

    public int WebSockets { get; init; }

    /// <summary>Messages each websocket published in the measured burst.</summary>
    public int Messages { get; init; }

    /// <summary>Which repeat (1-based).</summary>
    public int Run { get; init; }

    /// <summary>Websockets that had every message of the measured burst (and of the warm-up before it).</summary>
    public int Complete { get; init; }

    /// <summary>Websockets that got the server's Close (any burst), and the codes with counts.</summary>
    public int Closed { get; init; }

    public string CloseCodes { get; init; } = "";

    /// <summary>Websockets whose connection ended, any way (the Close, a reset), any burst.</summary>
    public int Ended { get; init; }

    /// <summary>Members the server's group closed (<see cref="SlowMemberPolicy.Close"/>), warm-up included.</summary>
    public long ServerClosed { get; init; }

    public int OutOfOrder { get; init; }

    public int Unexpected { get; init; }

    /// <summary>Relayed messages received in the measured burst, all websockets together.</summary>
    public long Receipts { get; init; }

    /// <summary>What they should be: websockets × websockets × messages.</summary>
    public long ExpectedReceipts { get; init; }

    /// <summary>Messages the server relayed in the measured burst (websockets × messages when all arrived).</summary>
    public long Relayed { get; init; }

    /// <summary>Delivery latency per receipt (receipt minus the sender's stamp), ns.</summary>
    public long LatencyP50Ns { get; init; }

    public long LatencyP99Ns { get; init; }

    public long LatencyMaxNs { get; init; }

    /// <summary>From the burst's first send until the last websocket had everything, ns (until the bound when not all did).</summary>
    public long TimeToAllNs { get; init; }

    /// <summary>The median websocket's time until it had everything, ns.</summary>
    public long MemberCompleteP50Ns { get; init; }

    /// <summary>The client's send loop (every websocket's one write), ns.</summary>
    public long SendNs { get; init; }

    public bool TimedOut { get; init; }

    /// <summary>When 10%, 50% and 90% of the receipts had arrived, ns since the burst's start.</summary>
    public long ArrivalP10Ns { get; init; }

    public long ArrivalP50Ns { get; init; }

    public long ArrivalP90Ns { get; init; }

    /// <summary>When the server's last relay (its <c>group.Broadcast</c>) returned, ns since the burst's start: from then
    /// on every message was in every member's output or queue, and only sending was left.</summary>
    public long RelaysDoneNs { get; init; }

    /// <summary>The share (0 to 1) of the receipts that had arrived when the server's last relay returned.</summary>
    public double ArrivedByRelaysDone { get; init; }

    /// <summary>With <see cref="BroadcastOptions.AllocationTypes"/>: what the server allocated most in the measured burst.</summary>
    public string? AllocationTypes { get; init; }

    /// <summary>The server process's CPU time over the measured burst, ms, and its user part.</summary>
    public double ServerCpuMs { get; init; }

    public double ServerUserCpuMs { get; init; }

    /// <summary>Bytes the server allocated over the measured burst.</summary>
    public long ServerAllocatedBytes { get; init; }

    public int[] Collections { get; init; } = [0, 0, 0];

    /// <summary>The client process's CPU time over the measured burst, ms.</summary>
    public double ClientCpuMs { get; init; }

    public string? FirstFailure { get; init; }

    public double LoadAverage { get; init; }

    /// <summary>Every websocket got every message, in each sender's order, none was closed or ended, nothing failed.</summary>
    public bool IsClean => Complete == WebSockets && Closed == 0 && Ended == 0 && ServerClosed == 0 && OutOfOrder == 0 && Unexpected == 0
        && !TimedOut && Receipts == ExpectedReceipts && FirstFailure is null;

    /// <summary>Why the run is not clean, in a few words; "none" when it is.</summary>
    public string Failures => IsClean ? "none"
        : string.Create(CultureInfo.InvariantCulture, $"{WebSockets - Complete} incomplete, {Closed} closed{(CloseCodes.Length > 0 ? $" ({CloseCodes})" : "")}, {Ended} ended, {ServerClosed} closed by the group, {OutOfOrder} out of order, {Unexpected} unexpected{(TimedOut ? ", timed out" : "")}{(FirstFailure is null ? "" : ": " + FirstFailure)}");

    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{Variant} burst {WebSockets} x {Messages} x {PayloadBytes} B run {Run}: {Complete}/{WebSockets} complete, {Closed} closed, {OutOfOrder} out of order; latency p50 {LatencyP50Ns / 1e6:F1} ms p99 {LatencyP99Ns / 1e6:F1} ms max {LatencyMaxNs / 1e6:F1} ms; all in {TimeToAllNs / 1e6:F0} ms (send loop {SendNs / 1e6:F0} ms); server CPU {ServerCpuMs:F0} ms, client CPU {ClientCpuMs:F0} ms; receipts {Receipts}/{ExpectedReceipts}{(IsClean ? "" : ", FAILED " + Failures)}");
}
