using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>Tier 3, the bulk encoder over a buffer of your own: reach for it to pack many frames back to back into one
/// caller-provided buffer, to be written and flushed once. Over an <see cref="System.Buffers.IBufferWriter{T}"/> use
/// <see cref="BulkFrameWriter"/>.</summary>
/// <remarks>Frames are added by copy (<see cref="TryAdd"/>) or reserved and filled in place (<see cref="TryReserve"/>);
/// a reserved payload is masked (for a client) when the next frame is added or on <see cref="Complete"/>.</remarks>
public ref struct FrameBatch
{
    private readonly FrameEncoder _encoder;
    private readonly Span<byte> _buffer;
    private int _written;
    private int _count;
    private int _pendingStart;
    private int _pendingLength = -1;
    private int _pendingKey;

    /// <summary>Starts a batch that writes into <paramref name="destination"/>.</summary>
    public FrameBatch(FrameEncoder encoder, Span<byte> destination)
    {
        ArgumentNullException.ThrowIfNull(encoder);
        _encoder = encoder;
        _buffer = destination;
    }

    /// <summary>Bytes of whole frames written so far.</summary>
    public readonly int BytesWritten => _written;

    /// <summary>Frames written so far.</summary>
    public readonly int FrameCount => _count;

    /// <summary>Free room left in the buffer.</summary>
    public readonly int FreeCapacity => _buffer.Length - _written;

    /// <summary>The buffer written so far. Call <see cref="Complete"/> first when the last frame was reserved.</summary>
    public readonly ReadOnlySpan<byte> WrittenSpan => _buffer.Slice(0, _written);

    /// <summary>Appends a frame, copying <paramref name="payload"/> (masked, for a client; the source is never
    /// changed).</summary>
    /// <returns><see langword="false"/>, with nothing written, when the frame does not fit.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryAdd(WebSocketOpcode opcode, scoped ReadOnlySpan<byte> payload, bool fin = true, int rsv = 0)
    {
        if (_encoder.GetFrameLength(payload.Length) > _buffer.Length - _written)
        {
            return false;
        }

        MaskPending();
        _written += _encoder.Write(_buffer.Slice(_written), opcode, payload, fin, rsv);
        _count++;
        return true;
    }

    /// <summary>Appends a frame whose payload the caller writes into <paramref name="payload"/>. It is masked (for a
    /// client) when the next frame is added or on <see cref="Complete"/>, so write it before either.</summary>
    /// <returns><see langword="false"/>, with nothing written, when the frame does not fit.</returns>
    public bool TryReserve(WebSocketOpcode opcode, int payloadLength, out Span<byte> payload, bool fin = true, int rsv = 0)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(payloadLength);
        if (_encoder.GetFrameLength(payloadLength) > _buffer.Length - _written)
        {
            payload = default;
            return false;
        }

        MaskPending();
        int headerLength = _encoder.WriteHeader(_buffer.Slice(_written), opcode, payloadLength, out int maskKey, fin, rsv);
        int start = _written + headerLength;
        payload = _buffer.Slice(start, payloadLength);
        if (_encoder.MasksFrames)
        {
            _pendingStart = start;
            _pendingLength = payloadLength;
            _pendingKey = maskKey;
        }

        _written = start + payloadLength;
        _count++;
        return true;
    }

    /// <summary>Masks the last reserved payload, if any, and returns <see cref="BytesWritten"/>. The batch may go
    /// on after it.</summary>
    public int Complete()
    {
        MaskPending();
        return _written;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void MaskPending()
    {
        if (_pendingLength >= 0)
        {
            WebSocketMask.Apply(_buffer.Slice(_pendingStart, _pendingLength), _pendingKey);
            _pendingLength = -1;
        }
    }
}
