using System.Buffers;

namespace WebSocketCodec;

/// <summary>Tier 3, the bulk encoder over an <see cref="IBufferWriter{T}"/> (a <c>PipeWriter</c>, say): reach for it to
/// write a burst of small frames with one <c>GetSpan</c>/<c>Advance</c> pair per chunk, not per frame. On a running
/// websocket <see cref="WebSocketFrameSender.BeginBulk"/> and <see cref="WebSocketFrameSender.SendBulkAsync{TState}"/>
/// hand you one; over a buffer of your own use <see cref="FrameBatch"/>.</summary>
/// <remarks>Frames are packed into one large span from the writer, which is advanced only when that span is full and on
/// <see cref="Complete"/>. Call <see cref="Complete"/> before flushing.</remarks>
public ref struct BulkFrameWriter
{
    private readonly FrameEncoder _encoder;
    private readonly IBufferWriter<byte> _writer;
    private readonly int _sizeHint;
    private FrameBatch _batch;
    private long _committed;

    /// <summary>Starts packing frames into <paramref name="writer"/>.</summary>
    /// <param name="encoder">The encoder (its role decides masking).</param>
    /// <param name="writer">Where the frames go.</param>
    /// <param name="sizeHint">How large a span to ask the writer for at a time.</param>
    public BulkFrameWriter(FrameEncoder encoder, IBufferWriter<byte> writer, int sizeHint = 16 * 1024)
    {
        ArgumentNullException.ThrowIfNull(encoder);
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(sizeHint);
        _encoder = encoder;
        _writer = writer;
        _sizeHint = sizeHint;
        _batch = new FrameBatch(encoder, writer.GetSpan(sizeHint));
    }

    /// <summary>Bytes written so far, committed or not.</summary>
    public readonly long BytesWritten => _committed + _batch.BytesWritten;

    /// <summary>Appends a frame, copying <paramref name="payload"/> (masked, for a client).</summary>
    public void Add(WebSocketOpcode opcode, scoped ReadOnlySpan<byte> payload, bool fin = true, int rsv = 0)
    {
        if (!_batch.TryAdd(opcode, payload, fin, rsv))
        {
            NextChunk(_encoder.GetFrameLength(payload.Length));
            if (!_batch.TryAdd(opcode, payload, fin, rsv))
            {
                ThrowHelper.ThrowDestinationTooSmall();
            }
        }
    }

    /// <summary>Appends a frame whose payload the caller writes into the returned span before the next call.</summary>
    public Span<byte> Reserve(WebSocketOpcode opcode, int payloadLength, bool fin = true, int rsv = 0)
    {
        if (!_batch.TryReserve(opcode, payloadLength, out Span<byte> payload, fin, rsv))
        {
            NextChunk(_encoder.GetFrameLength(payloadLength));
            if (!_batch.TryReserve(opcode, payloadLength, out payload, fin, rsv))
            {
                ThrowHelper.ThrowDestinationTooSmall();
            }
        }

        return payload;
    }

    /// <summary>Masks the last reserved payload and advances the writer past every frame written.</summary>
    /// <returns>The bytes written in all.</returns>
    public long Complete()
    {
        int length = _batch.Complete();
        _writer.Advance(length);
        _committed += length;
        _batch = new FrameBatch(_encoder, default);
        return _committed;
    }

    private void NextChunk(long frameLength)
    {
        int length = _batch.Complete();
        _writer.Advance(length);
        _committed += length;
        int size = (int)Math.Max(_sizeHint, Math.Min(frameLength, int.MaxValue));
        _batch = new FrameBatch(_encoder, _writer.GetSpan(size));
    }
}
