using System.Buffers;

namespace WebSocketCodec;

/// <summary>Tier 1, a frame reserved in an <see cref="IBufferWriter{T}"/> by <see cref="FrameEncoder.Reserve"/> (or
/// <see cref="WebSocketFrameSender.Reserve"/>): reach for it to write a payload straight into the output, with no copy.
/// Its header is written, its payload is for the caller to fill. <see cref="Commit"/> masks the payload (for a client)
/// and advances the writer.</summary>
public ref struct ReservedFrame
{
    private readonly IBufferWriter<byte> _writer;
    private readonly Span<byte> _frame;
    private readonly int _headerLength;
    private readonly bool _masked;
    private readonly int _maskKey;
    private bool _committed;

    internal ReservedFrame(IBufferWriter<byte> writer, Span<byte> frame, int headerLength, bool masked, int maskKey)
    {
        _writer = writer;
        _frame = frame;
        _headerLength = headerLength;
        _masked = masked;
        _maskKey = maskKey;
        _committed = false;
    }

    /// <summary>Where the payload goes: exactly the length reserved.</summary>
    public readonly Span<byte> Payload => _frame.Slice(_headerLength);

    /// <summary>The whole frame length (header and payload).</summary>
    public readonly int FrameLength => _frame.Length;

    /// <summary>Masks the payload (for a client) and advances the writer past the frame. Call once, after the payload
    /// is written and before anything else touches the writer.</summary>
    public void Commit()
    {
        if (_committed)
        {
            ThrowHelper.ThrowInvalidOperation("The frame was already committed.");
        }

        _committed = true;
        if (_masked)
        {
            WebSocketMask.Apply(_frame.Slice(_headerLength), _maskKey);
        }

        _writer.Advance(_frame.Length);
    }
}
