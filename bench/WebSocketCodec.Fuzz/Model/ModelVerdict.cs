namespace WebSocketCodec.Fuzz.Model;

/// <summary>How the model's reading of an input ended.</summary>
public enum ModelEnd
{
    /// <summary>The input ended at a frame boundary or inside a frame: a decoder needs more bytes. The rules in
    /// <see cref="ModelVerdict.Broken"/>, if any, are already proven by the bytes of the cut frame; a decoder may fail
    /// now for one of them (one that checks bytes as they come) or wait for the rest of the frame (one that judges whole
    /// headers, or whole frames).</summary>
    NeedsMoreData,

    /// <summary>A frame broke a rule: its header, when a header rule (the frame's header is all there), or its payload
    /// (the frame is all there). Every conforming decoder fails here.</summary>
    Rejected,
}

/// <summary>What the reference model makes of an input.</summary>
public sealed class ModelVerdict
{
    /// <summary>Creates a verdict.</summary>
    public ModelVerdict(IReadOnlyList<ModelFrame> frames, long acceptedBytes, ModelEnd end, IReadOnlyList<ModelRule> broken)
    {
        Frames = frames;
        AcceptedBytes = acceptedBytes;
        End = end;
        Broken = broken;
        Statuses = broken.Select(ModelRules.Status).ToHashSet();
    }

    /// <summary>The frames accepted, in order, up to where the model stopped.</summary>
    public IReadOnlyList<ModelFrame> Frames { get; }

    /// <summary>The bytes those frames take on the wire.</summary>
    public long AcceptedBytes { get; }

    /// <summary>How it ended.</summary>
    public ModelEnd End { get; }

    /// <summary>Every rule the frame after <see cref="Frames"/> breaks (as far as its bytes are in): the model does not
    /// pick one, as the RFC does not order them.</summary>
    public IReadOnlyList<ModelRule> Broken { get; }

    /// <summary>The close statuses those rules justify: a decoder that fails on this input must send one of them.</summary>
    public IReadOnlySet<int> Statuses { get; }

    /// <inheritdoc />
    public override string ToString() =>
        $"{Frames.Count} frames ({AcceptedBytes} B), {End}" + (Broken.Count == 0 ? string.Empty
            : $": {string.Join(", ", Broken)} ({string.Join("/", Statuses.Order())})");
}
