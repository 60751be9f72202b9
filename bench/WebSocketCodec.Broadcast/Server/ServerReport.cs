namespace WebSocketCodec.Broadcast.Server;

/// <summary>What the server measured between the driver's mark and its report request (JSON on one stdout line).</summary>
public sealed record ServerReport
{
    /// <summary>Broadcasts sent in the window.</summary>
    public int Broadcasts { get; init; }

    /// <summary>Websockets held at the report.</summary>
    public int Members { get; init; }

    /// <summary>The process's CPU time (user and system, every thread) in the window, in milliseconds.</summary>
    public double CpuMs { get; init; }

    /// <summary>Of <see cref="CpuMs"/>, the user part.</summary>
    public double UserCpuMs { get; init; }

    /// <summary>Bytes allocated by the process in the window (<c>GC.GetTotalAllocatedBytes(true)</c>).</summary>
    public long AllocatedBytes { get; init; }

    /// <summary>Collections in the window, generations 0, 1 and 2.</summary>
    public int[] Collections { get; init; } = [];

    /// <summary>With <c>--allocation-types</c>: the types sampled in the window, most bytes first.</summary>
    public string? AllocationTypes { get; init; }

    /// <summary>A broadcast that threw, if any (the message).</summary>
    public string? Error { get; init; }

    /// <summary>When a broadcast did not return within the hold bound (a loop waiting on a stalled member): how many
    /// broadcasts (warm-up included) had completed before it.</summary>
    public int? HeldAfter { get; init; }

    /// <summary>Recipients the group skipped in the window (its slow-member policy).</summary>
    public long Skipped { get; init; }

    /// <summary>Stalled websockets that were members at the report (they must all still be).</summary>
    public int StalledMembers { get; init; }

    /// <summary>Stalled websockets that stayed writable through the filling (not stalled by the time they joined).</summary>
    public int StalledNotFilled { get; init; }

    /// <summary>Members the group closed in the window (<see cref="SlowMemberPolicy.Close"/>, the burst mode).</summary>
    public long Closed { get; init; }

    /// <summary>Members the group closed since the server started (warm-up included).</summary>
    public long ClosedInAll { get; init; }

    /// <summary>Burst mode: messages the members sent that the server relayed to the group in the window.</summary>
    public long Relayed { get; init; }

    /// <summary>Burst mode: frames not relayed (fragments; the tool's client sends whole messages), since the start.</summary>
    public long Fragments { get; init; }

    /// <summary>Burst mode: websockets that ended with our 1008 (slow consumer), since the start.</summary>
    public int SlowEnded { get; init; }

    /// <summary>Burst mode: when (<see cref="System.Diagnostics.Stopwatch"/>, comparable with the client's stamps) the
    /// latest relay's broadcast returned: every message was in every member's output or queue by then.</summary>
    public long LastRelayReturned { get; init; }
}
