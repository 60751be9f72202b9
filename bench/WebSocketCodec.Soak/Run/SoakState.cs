using System.Text.Json;

namespace WebSocketCodec.Soak;

/// <summary>The resumable record of a run: its parameters and every completed segment. A rerun with the same
/// parameters continues after the last recorded segment.</summary>
public sealed class SoakState
{
    private static readonly JsonSerializerOptions Json = new() { IncludeFields = true, WriteIndented = true };

    /// <summary>The seed.</summary>
    public ulong Seed { get; set; }

    /// <summary>Frames in the whole run.</summary>
    public long Frames { get; set; }

    /// <summary>Frames per segment.</summary>
    public long SegmentFrames { get; set; }

    /// <summary>Websockets per segment.</summary>
    public int Connections { get; set; }

    /// <summary>The transports.</summary>
    public List<string> Transports { get; set; } = [];

    /// <summary>The machine the segments ran on.</summary>
    public string Machine { get; set; } = "";

    /// <summary>The CPU model the segments ran on ("" in state files written before it was recorded).</summary>
    public string Cpu { get; set; } = "";

    /// <summary>Completed segments, in order.</summary>
    public List<SegmentResult> Segments { get; set; } = [];

    /// <summary>A new state for <paramref name="options"/>.</summary>
    public static SoakState For(SoakOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new SoakState
        {
            Seed = options.Seed,
            Frames = options.Frames,
            SegmentFrames = options.SegmentFrames,
            Connections = options.Connections,
            Transports = [.. options.Transports],
            Cpu = WebSocketCodec.Bench.ResultsStamp.CpuModel(),
            Machine = $"{Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSDescription}, .NET {Environment.Version}",
        };
    }

    /// <summary>Whether a recorded run has the same parameters as <paramref name="options"/> (so it may be continued).</summary>
    public bool Matches(SoakOptions options) =>
        options is not null && Seed == options.Seed && Frames == options.Frames && SegmentFrames == options.SegmentFrames
        && Connections == options.Connections && Transports.SequenceEqual(options.Transports);

    /// <summary>Reads a state file.</summary>
    public static SoakState Load(string path) =>
        JsonSerializer.Deserialize<SoakState>(File.ReadAllText(path), Json) ?? throw new InvalidDataException($"{path} is empty.");

    /// <summary>Writes the state file (a temporary file, then moved over the old one).</summary>
    public void Save(string path)
    {
        string temporary = path + ".tmp";
        File.WriteAllText(temporary, JsonSerializer.Serialize(this, Json));
        File.Move(temporary, path, overwrite: true);
    }

    /// <summary>The frames of the completed segments (sent and received).</summary>
    public long CompletedFrames => Segments.Sum(s => s.Total().Frames);

    /// <summary>The segments the run has in all.</summary>
    public long SegmentCount => (Frames + SegmentFrames - 1) / SegmentFrames;
}
