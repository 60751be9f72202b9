using System.Runtime.CompilerServices;
using DotNetty.Buffers;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Sends frames on one websocket of a SpanNetty channel, in the three tiers of the core encoder. The synchronous
/// methods are for the channel's event loop (its callbacks): frames are gathered into the read cycle's pooled output
/// buffer and flushed once when the cycle ends (or by <see cref="Flush"/>). From other threads use
/// <see cref="SendAsync"/>, which runs on the event loop and flushes.
/// </summary>
public sealed class ChannelFrameSender
{
    /// <summary>The room to leave in front of a payload for <see cref="SendPrefixed"/>: the longest header.</summary>
    public const int PrefixRoom = FrameHeaderReader.MaxHeaderLength;

    private readonly WebSocketCallbacksHandler _handler;
    private readonly ChannelOutput _output;
    private readonly FrameEncoder _encoder;
    private OutboundFragmentOrder _order;

    internal ChannelFrameSender(WebSocketCallbacksHandler handler, ChannelOutput output, FrameEncoder encoder)
    {
        _handler = handler;
        _output = output;
        _encoder = encoder;
    }

    /// <summary>The encoder (header lengths; masks for a client).</summary>
    public FrameEncoder Encoder => _encoder;

    /// <summary>The channel's buffer allocator.</summary>
    public IByteBufferAllocator Allocator => _handler.Context.Allocator;

    /// <summary>Whether data frames may still be sent (no Close sent yet, the channel open).</summary>
    public bool CanSend => _handler.CanSend;

    /// <summary>Whether the caller is on the channel's event loop, where the synchronous methods may be used.</summary>
    public bool IsOnEventLoop => _handler.Context.Executor.InEventLoop;

    /// <summary>The negotiated subprotocol, if any.</summary>
    public string? Subprotocol => _handler.Subprotocol;

    /// <summary>Tier 1 (frame factory): reserves a frame in the output; write the payload into
    /// <see cref="ReservedFrame.Payload"/>, then <see cref="ReservedFrame.Commit"/> (which masks for a client).</summary>
    public ReservedFrame Reserve(WebSocketOpcode opcode, int payloadLength, bool fin = true)
    {
        CheckSync(opcode, fin);
        return _encoder.Reserve(_output, opcode, payloadLength, fin);
    }

    /// <summary>Copies <paramref name="payload"/> into a frame in the output (masking the copy for a client).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Send(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        CheckSync(opcode, fin);
        ChannelOutput output = _output;
        output.Advance(_encoder.Write(output.GetSpan(payload.Length + PrefixRoom), opcode, payload, fin));
    }

    /// <summary>A pooled buffer for <see cref="SendPrefixed"/>: <see cref="PrefixRoom"/> bytes left free in front, its
    /// reader and writer index after them; write the payload, then send it.</summary>
    public IByteBuffer AllocatePrefixed(int payloadCapacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(payloadCapacity);
        IByteBuffer buffer = Allocator.Buffer(PrefixRoom + payloadCapacity);
        buffer.SetIndex(PrefixRoom, PrefixRoom);
        return buffer;
    }

    /// <summary>Tier 2 (prefix encoder): the readable bytes of <paramref name="frame"/> are the payload; the header is
    /// written into the room in front of them (see <see cref="AllocatePrefixed"/>), a client's payload is masked in
    /// place, and the buffer itself is written: the payload is never copied. Takes ownership of the buffer (it is
    /// released if it cannot be sent).</summary>
    public void SendPrefixed(IByteBuffer frame, WebSocketOpcode opcode, bool fin = true)
    {
        ArgumentNullException.ThrowIfNull(frame);
        try
        {
            CheckSync(opcode, fin);
            int payloadLength = frame.ReadableBytes;
            int headerLength = _encoder.GetHeaderLength(payloadLength);
            int start = frame.ReaderIndex - headerLength;
            if (start < 0)
            {
                throw new ArgumentException(
                    $"The buffer has {frame.ReaderIndex} bytes in front of its payload; the header needs {headerLength} (use AllocatePrefixed).", nameof(frame));
            }

            _encoder.EncodePrefix(frame.GetSpan(start, headerLength + payloadLength), headerLength, payloadLength, opcode, fin);
            frame.SetReaderIndex(start);
        }
        catch
        {
            frame.Release();
            throw;
        }

        _output.WriteOut(frame);
    }

    /// <summary>Tier 3 (bulk encoder): packs many frames into the output's buffer; call
    /// <see cref="BulkFrameWriter.Complete"/> when done. Frame order within a message is yours to keep.</summary>
    public BulkFrameWriter BeginBulk(int sizeHint = 16 * 1024)
    {
        _handler.CheckOnLoop();
        _handler.CheckCanSend();
        return new BulkFrameWriter(_encoder, _output, sizeHint);
    }

    /// <summary>Writes out and flushes what was sent so far (the handler does this at the end of every read cycle).</summary>
    public void Flush()
    {
        _handler.CheckOnLoop();
        _output.Flush();
    }

    /// <summary>From any thread: sends one frame (a copy of <paramref name="payload"/>) and flushes, on the event loop.</summary>
    public Task SendAsync(WebSocketOpcode opcode, ReadOnlyMemory<byte> payload, bool fin = true)
    {
        if (IsOnEventLoop)
        {
            Send(opcode, payload.Span, fin);
            _output.Flush();
            return Task.CompletedTask;
        }

        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _handler.Context.Executor.Execute(() =>
        {
            try
            {
                Send(opcode, payload.Span, fin);
                _output.Flush();
                done.TrySetResult();
            }
            catch (Exception error)
            {
                done.TrySetException(error);
            }
        });
        return done.Task;
    }

    /// <summary>Starts the close handshake (a Close with <paramref name="status"/>; nothing if one was sent already);
    /// completes when the websocket has ended.</summary>
    public Task<WebSocketCloseInfo> CloseAsync(ushort status = (ushort)CloseStatus.NormalClosure, string? reason = null) =>
        _handler.CloseAsync(status, reason);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void CheckSync(WebSocketOpcode opcode, bool fin)
    {
        _handler.CheckOnLoop();
        _handler.CheckCanSend();
        _order.Next(opcode, fin);
    }
}
