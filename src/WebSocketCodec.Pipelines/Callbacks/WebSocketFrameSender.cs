using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// Sends frames on one websocket, in the three tiers of the core encoder, straight into the connection's
/// <see cref="PipeWriter"/>. The synchronous methods are for the read loop (inside
/// <see cref="IWebSocketFrameListener.OnFrame"/>); the loop flushes once after each read. From any other thread use the
/// asynchronous methods: they take the connection's write lock, so they are ordered with the loop's own Pongs and
/// Close, and they flush.
/// </summary>
public sealed class WebSocketFrameSender
{
    private readonly WebSocketChannel _channel;
    private readonly CoalescingWriter _writer;
    private readonly FrameEncoder _encoder;
    private OutboundFragmentOrder _order;

    internal WebSocketFrameSender(WebSocketChannel channel, CoalescingWriter writer, FrameEncoder encoder)
    {
        _channel = channel;
        _writer = writer;
        _encoder = encoder;
    }

    /// <summary>The encoder (for header lengths and the prefix tier on buffers of your own).</summary>
    public FrameEncoder Encoder => _encoder;

    /// <summary>The websocket this sender writes to.</summary>
    public WebSocketChannel Channel => _channel;

    /// <summary>Whether data frames may still be sent (no Close sent yet and the transport is up).</summary>
    public bool CanSend => _channel.CanSend;

    /// <summary>Whether the caller is on the read loop, where the synchronous methods may be used.</summary>
    public bool IsOnReadLoop => _channel.IsOnReadLoop;

    /// <summary>Tier 1 (frame factory): reserves a frame in the output; write the payload into
    /// <see cref="ReservedFrame.Payload"/>, then <see cref="ReservedFrame.Commit"/> (which masks for a client).</summary>
    public ReservedFrame Reserve(WebSocketOpcode opcode, int payloadLength, bool fin = true)
    {
        CheckSync(opcode, fin);
        return _encoder.Reserve(_writer, opcode, payloadLength, fin);
    }

    /// <summary>Copies <paramref name="payload"/> into a frame in the output (masking the copy for a client).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Send(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        CheckSync(opcode, fin);
        // Straight into the coalescing writer (a sealed class, so no interface call per frame): the longest header
        // (14 bytes) plus the payload fits whatever the header's form.
        CoalescingWriter writer = _writer;
        writer.Advance(_encoder.Write(writer.GetSpan(payload.Length + 14), opcode, payload, fin));
    }

    /// <summary>Tier 2 (prefix encoder): writes the header into the room in front of a payload you already hold in
    /// <paramref name="buffer"/> at <paramref name="payloadOffset"/> (masking it in place for a client), then the
    /// frame into the output.</summary>
    /// <returns>The frame's length.</returns>
    public int SendPrefixed(Span<byte> buffer, int payloadOffset, int payloadLength, WebSocketOpcode opcode, bool fin = true)
    {
        CheckSync(opcode, fin);
        int start = _encoder.EncodePrefix(buffer, payloadOffset, payloadLength, opcode, fin);
        ReadOnlySpan<byte> frame = buffer.Slice(start, payloadOffset + payloadLength - start);
        _writer.Write(frame);
        return frame.Length;
    }

    /// <summary>Tier 3 (bulk encoder): packs many frames into the output's buffer; call
    /// <see cref="BulkFrameWriter.Complete"/> when done. Frame order within a message is yours to keep.</summary>
    public BulkFrameWriter BeginBulk(int sizeHint = 16 * 1024)
    {
        _channel.CheckOnReadLoop();
        _channel.CheckCanSend();
        return new BulkFrameWriter(_encoder, _writer, sizeHint);
    }

    /// <summary>From any thread: sends one frame and flushes.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask SendAsync(
        WebSocketOpcode opcode, ReadOnlyMemory<byte> payload, bool fin = true, CancellationToken cancellationToken = default)
    {
        if (_channel.IsOnReadLoop)
        {
            Send(opcode, payload.Span, fin);
            return;
        }

        await _channel.EnterWriteAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            _channel.CheckCanSend();
            _order.Next(opcode, fin);
            _encoder.Write(_writer, opcode, payload.Span, fin);
            await _channel.FlushLockedAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _channel.ExitWrite();
        }
    }

    /// <summary>From any thread: packs frames with <paramref name="write"/> into one buffer, one write, one flush.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask SendBulkAsync<TState>(
        BulkWriteAction<TState> write, TState state, int sizeHint = 16 * 1024, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(write);
        if (_channel.IsOnReadLoop)
        {
            WriteBulk(write, state, sizeHint);
            return;
        }

        await _channel.EnterWriteAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            _channel.CheckCanSend();
            WriteBulk(write, state, sizeHint);
            await _channel.FlushLockedAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _channel.ExitWrite();
        }
    }

    /// <summary>Starts the close handshake (see <see cref="WebSocketChannel.CloseAsync"/>).</summary>
    public ValueTask CloseAsync(ushort status = (ushort)CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default) =>
        _channel.CloseAsync(status, reason, cancellationToken);

    private void WriteBulk<TState>(BulkWriteAction<TState> write, TState state, int sizeHint)
    {
        var bulk = new BulkFrameWriter(_encoder, _writer, sizeHint);
        write(ref bulk, state);
        bulk.Complete();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void CheckSync(WebSocketOpcode opcode, bool fin)
    {
        _channel.CheckOnReadLoop();
        _channel.CheckCanSend();
        _order.Next(opcode, fin);
    }
}
