namespace WebSocketCodec.Fuzz;

/// <summary>A frame handler (a struct, as the library asks) that copies every frame it is given into a list.</summary>
public struct RecordingHandler : IFrameHandler
{
    /// <summary>Creates a handler that records into <paramref name="frames"/>.</summary>
    public RecordingHandler(List<FrameRecord> frames) => Frames = frames;

    /// <summary>The frames so far.</summary>
    public List<FrameRecord> Frames { get; }

    /// <inheritdoc />
    public readonly bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        Frames.Add(new FrameRecord(opcode, fin, rsv, payload.ToArray()));
        return true;
    }
}
