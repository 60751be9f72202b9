using System.Globalization;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>One run: one variant, payload size and websocket count, its server and client processes.</summary>
public sealed record BroadcastMeasurement
{
    public required string Variant { get; init; }

    public int PayloadBytes { get; init; }

    public int WebSockets { get; init; }

    /// <summary>Websockets that never read, in the group (or member list) beside the <see cref="WebSockets"/> reading
    /// ones; delivery is measured over the reading ones only.</summary>
    public int Stalled { get; init; }

    /// <summary>Which repeat (1-based).</summary>
    public int Run { get; init; }

    /// <summary>Measured broadcasts (after the warm-up).</summary>
    public int Broadcasts { get; init; }

    /// <summary>The server process's CPU time over the measured broadcasts, ms.</summary>
    public double CpuMs { get; init; }

    public double UserCpuMs { get; init; }

    /// <summary>Bytes the server process allocated over the measured broadcasts.</summary>
    public long AllocatedBytes { get; init; }

    public int[] Collections { get; init; } = [0, 0, 0];

    /// <summary>Delivery time (the last websocket's receipt minus the broadcast's start), ns.</summary>
    public long DeliveryP50Ns { get; init; }

    public long DeliveryP99Ns { get; init; }

    public long DeliveryMaxNs { get; init; }

    /// <summary>Broadcast messages the clients received, warm-up included.</summary>
    public long Received { get; init; }

    /// <summary>What every websocket should have received: websockets × (warm-up + broadcasts).</summary>
    public long Expected { get; init; }

    public int OutOfOrder { get; init; }

    public int Unexpected { get; init; }

    /// <summary>Websockets that failed to open or ended early.</summary>
    public int Failed { get; init; }

    public string? FirstFailure { get; init; }

    /// <summary>A broadcast did not return within the hold bound: how many had completed before it (warm-up included).</summary>
    public int? HeldAfter { get; init; }

    /// <summary>Recipients the group skipped in the measured window (its slow-member policy).</summary>
    public long Skipped { get; init; }

    /// <summary>Stalled websockets still members at the end of the run.</summary>
    public int StalledMembersAtEnd { get; init; }

    /// <summary>Stalled websockets the server could not fill until they were not writable.</summary>
    public int StalledNotFilled { get; init; }

    /// <summary>The types the server allocated most in the window (with <see cref="BroadcastOptions.AllocationTypes"/>).</summary>
    public string? AllocationTypes { get; init; }

    /// <summary>The 1-minute load average at the end of the run (the VM is shared).</summary>
    public double LoadAverage { get; init; }

    public double CpuUsPerBroadcast => Broadcasts == 0 ? 0 : CpuMs * 1000 / Broadcasts;

    public double UserCpuUsPerBroadcast => Broadcasts == 0 ? 0 : UserCpuMs * 1000 / Broadcasts;

    public double BytesPerBroadcast => Broadcasts == 0 ? 0 : (double)AllocatedBytes / Broadcasts;

    public double BytesPerRecipient => Broadcasts == 0 || WebSockets == 0 ? 0 : (double)AllocatedBytes / Broadcasts / WebSockets;

    /// <summary>Every websocket got every broadcast, in order, and nothing failed.</summary>
    public bool IsClean => Failed == 0 && OutOfOrder == 0 && Unexpected == 0 && Received == Expected && FirstFailure is null && HeldAfter is null
        && StalledNotFilled == 0 && StalledMembersAtEnd == Stalled;

    /// <summary>A broadcast waited on a stalled member past the hold bound (a loop variant): a result, not a failure.</summary>
    public bool IsHeld => HeldAfter is not null;

    /// <summary>The variant, and its stalled websockets if any: <c>group +10 stalled</c>.</summary>
    public string Label => Stalled == 0 ? Variant : $"{Variant} +{Stalled} stalled";

    /// <summary>Why the run is not clean, in a few words; "none" when it is.</summary>
    public string Failures => IsClean ? "none"
        : IsHeld ? $"held by a stalled member after {HeldAfter} broadcasts"
        : $"{Failed} failed, {OutOfOrder} out of order, {Unexpected} unexpected{(StalledNotFilled > 0 ? $", {StalledNotFilled} stalled not filled" : "")}{(StalledMembersAtEnd != Stalled ? $", {StalledMembersAtEnd}/{Stalled} stalled still members" : "")}: {FirstFailure}";

    public override string ToString() => string.Create(CultureInfo.InvariantCulture,
        $"{Label} {PayloadBytes} B x {WebSockets} run {Run}: {CpuUsPerBroadcast:F0} us CPU/broadcast, {BytesPerRecipient:F2} B/recipient ({BytesPerBroadcast:F0} B/broadcast), delivery p50 {DeliveryP50Ns / 1e6:F2} ms p99 {DeliveryP99Ns / 1e6:F2} ms, received {Received}/{Expected}{(Stalled > 0 ? $", skipped {Skipped}" : "")}{(IsClean ? "" : (IsHeld ? ", " : ", FAILED ") + Failures)}");
}
