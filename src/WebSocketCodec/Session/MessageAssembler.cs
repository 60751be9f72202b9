using System.Buffers;

namespace WebSocketCodec;

/// <summary>Joins the fragments of a message into one pooled buffer that grows by doubling (amortized linear copying):
/// for a frame listener of your own that needs whole messages; <see cref="WebSocketMessageListener{TSender}"/> and
/// <see cref="MessageWebSocket"/> use one already. The decoder has already bounded the message's length, validated its
/// UTF-8 and the fragment order. Not thread-safe.</summary>
public sealed class MessageAssembler : IDisposable
{
    private readonly ArrayPool<byte> _pool;
    private byte[]? _buffer;
    private int _length;

    /// <summary>Creates an assembler renting from <paramref name="pool"/> (the shared pool if null).</summary>
    public MessageAssembler(ArrayPool<byte>? pool = null) => _pool = pool ?? ArrayPool<byte>.Shared;

    /// <summary>Whether a message has begun and not yet been taken.</summary>
    public bool InMessage { get; private set; }

    /// <summary>Whether the message being assembled is text.</summary>
    public bool IsText { get; private set; }

    /// <summary>Bytes gathered so far.</summary>
    public int Length => _length;

    /// <summary>Adds a data frame's payload: a Text or Binary frame begins a message, a Continuation extends it.</summary>
    public void Append(WebSocketOpcode opcode, ReadOnlySpan<byte> payload)
    {
        if (opcode != WebSocketOpcode.Continuation)
        {
            if (InMessage)
            {
                ThrowHelper.ThrowInvalidOperation("The previous message was not taken.");
            }

            InMessage = true;
            IsText = opcode == WebSocketOpcode.Text;
            _length = 0;
        }

        if (_buffer is null || _buffer.Length - _length < payload.Length)
        {
            Grow(payload.Length);
        }

        payload.CopyTo(_buffer.AsSpan(_length));
        _length += payload.Length;
    }

    /// <summary>
    /// Takes a data frame and says whether a whole message is ready: an unfragmented message is its frame's own payload
    /// (no copy); a fragmented one is joined here and handed over on its final fragment (valid until the next call).
    /// </summary>
    /// <param name="opcode">Text, Binary or Continuation.</param>
    /// <param name="fin">Whether the frame is its message's final fragment.</param>
    /// <param name="payload">The frame's payload.</param>
    /// <param name="isText">On true, whether the message is text.</param>
    /// <param name="message">On true, the whole message.</param>
    public bool TryComplete(WebSocketOpcode opcode, bool fin, ReadOnlySpan<byte> payload, out bool isText, out ReadOnlySpan<byte> message)
    {
        if (fin && opcode != WebSocketOpcode.Continuation)
        {
            isText = opcode == WebSocketOpcode.Text;
            message = payload;
            return true;
        }

        Append(opcode, payload);
        if (!fin)
        {
            isText = false;
            message = default;
            return false;
        }

        isText = IsText;
        message = Peek();
        Reset();
        return true;
    }

    /// <summary>Takes the finished message: the caller owns <paramref name="buffer"/> (rented from the pool) and must
    /// return it.</summary>
    public void Detach(out byte[] buffer, out int length)
    {
        if (!InMessage)
        {
            ThrowHelper.ThrowInvalidOperation("No message has begun.");
        }

        buffer = _buffer ?? _pool.Rent(1);
        length = _length;
        _buffer = null;
        _length = 0;
        InMessage = false;
    }

    /// <summary>The gathered bytes, valid until the next call.</summary>
    public ReadOnlySpan<byte> Peek() => _buffer.AsSpan(0, _length);

    /// <summary>Forgets the message and keeps the buffer for the next one.</summary>
    public void Reset()
    {
        _length = 0;
        InMessage = false;
    }

    /// <summary>Returns the buffer to the pool.</summary>
    public void Dispose()
    {
        byte[]? buffer = _buffer;
        _buffer = null;
        _length = 0;
        InMessage = false;
        if (buffer is not null)
        {
            _pool.Return(buffer);
        }
    }

    private void Grow(int more)
    {
        int needed = checked(_length + more);
        int size = Math.Max(needed, Math.Max(256, (_buffer?.Length ?? 0) * 2));
        byte[] next = _pool.Rent(size);
        if (_buffer is not null)
        {
            _buffer.AsSpan(0, _length).CopyTo(next);
            _pool.Return(_buffer);
        }

        _buffer = next;
    }
}
