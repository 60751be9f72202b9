namespace WebSocketCodec.Fuzz;

/// <summary>A session handler (a struct) that records every frame and throws <see cref="HandlerFailureException"/> at the
/// data frame numbered <see cref="ThrowAt"/> (counted from 0; -1 never), to drive the session's
/// <see cref="WebSocketSession.OnHandlerFailed"/> path.</summary>
public struct FailingHandler : IFrameHandler
{
    private readonly int[] _dataFrames;

    /// <summary>Creates a handler recording into <paramref name="frames"/>.</summary>
    public FailingHandler(List<FrameRecord> frames, int throwAt)
    {
        Frames = frames;
        ThrowAt = throwAt;
        _dataFrames = new int[1];
    }

    /// <summary>The frames so far (the one that threw included).</summary>
    public List<FrameRecord> Frames { get; }

    /// <summary>The data frame to throw at.</summary>
    public int ThrowAt { get; }

    /// <inheritdoc />
    public readonly bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        Frames.Add(new FrameRecord(opcode, fin, rsv, payload.ToArray()));
        if ((int)opcode < 8 && _dataFrames[0]++ == ThrowAt)
        {
            throw new HandlerFailureException();
        }

        return true;
    }
}
