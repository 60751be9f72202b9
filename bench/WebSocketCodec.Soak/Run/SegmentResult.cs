namespace WebSocketCodec.Soak;

/// <summary>One completed segment: what each transport did, the pools' balance after every websocket closed, and how
/// long it took.</summary>
public sealed class SegmentResult
{
    /// <summary>The segment's number (its traffic derives from the seed and this).</summary>
    public long Index { get; set; }

    /// <summary>The commit it ran at (<c>git rev-parse --short HEAD</c>, marked when the tree had changes; "" in state
    /// files written before it was recorded).</summary>
    public string Commit { get; set; } = "";

    /// <summary>When it finished, UTC (<c>yyyy-MM-dd HH:mm</c>; "" in state files written before it was recorded).</summary>
    public string FinishedUtc { get; set; } = "";

    /// <summary>Frames planned for it.</summary>
    public long PlannedFrames { get; set; }

    /// <summary>Seconds it took, from the first connect to the last close.</summary>
    public double Seconds { get; set; }

    /// <summary>Counts by transport (<see cref="SoakOptions.AllTransports"/>).</summary>
    public Dictionary<string, SoakCounts> Transports { get; set; } = [];

    /// <summary>Seconds from the segment's start until each transport's last websocket ended (the transports run side by
    /// side; empty in state files written before it was recorded).</summary>
    public Dictionary<string, double> TransportSeconds { get; set; } = [];

    /// <summary>Transports that did not run, with the reason.</summary>
    public Dictionary<string, string> Skipped { get; set; } = [];

    /// <summary>Arrays of the servers' pool rented during the segment.</summary>
    public long ServerPoolRented { get; set; }

    /// <summary>Arrays of the servers' pool not returned once every websocket closed (must be 0).</summary>
    public long ServerPoolOutstanding { get; set; }

    /// <summary>Arrays of our clients' pool rented during the segment.</summary>
    public long ClientPoolRented { get; set; }

    /// <summary>Arrays of our clients' pool not returned once every websocket closed (must be 0).</summary>
    public long ClientPoolOutstanding { get; set; }

    /// <summary>The segment's counts, all transports together.</summary>
    public SoakCounts Total()
    {
        var total = new SoakCounts();
        foreach (SoakCounts counts in Transports.Values)
        {
            total.Add(counts);
        }

        return total;
    }

    /// <summary>Whether nothing failed and both pools balanced.</summary>
    public bool Passed => Total().Failures == 0 && ServerPoolOutstanding == 0 && ClientPoolOutstanding == 0;
}
