using System.Buffers;
using System.Runtime.CompilerServices;
using DotNetty.Buffers;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// Sends frames on one websocket of a SpanNetty channel, in the three tiers of the core encoder. The synchronous
/// methods are for the channel's event loop (its callbacks): frames are gathered into the read cycle's pooled output
/// buffer and flushed once when the cycle ends (or by <see cref="Flush"/>). From other threads use
/// <see cref="SendAsync"/> (waits while the channel is above its high water mark, then runs on the event loop and
/// flushes) or <see cref="TrySend"/> (never waits). After our Close the synchronous methods drop their frames and say
/// so (<see cref="Send"/> returns false); only <see cref="CloseAsync"/> sends a Close.
/// </summary>
public sealed partial class ChannelFrameSender : IWebSocketGroupMember
{
    /// <summary>The room to leave in front of a payload for <see cref="SendPrefixed"/>: the longest header.</summary>
    public const int PrefixRoom = FrameHeaderReader.MaxHeaderLength;

    private readonly WebSocketChannelHandler _handler;
    private readonly ChannelOutput _output;
    private readonly FrameEncoder _encoder;
    private OutboundFragmentOrder _order;
    private Queue<PendingSend>? _waiting; // SendAsync calls held while the channel is not writable (event loop only)
    private ArrayBufferWriter<byte>? _discard;
    private long _queuedBytes; // taken by TrySend off the event loop, not yet on the channel
    private ChannelInbox? _inbox;

    /// <summary>Set by the synchronous sends (the callbacks answered what they read); the handler clears and reads it
    /// around each read.</summary>
    internal bool LoopSent;

    internal ChannelFrameSender(WebSocketChannelHandler handler, ChannelOutput output, FrameEncoder encoder)
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

    /// <summary>Whether the channel is under its high water mark (the session's <c>OutboundHighWaterMark</c>).</summary>
    public bool IsWritable => _handler.Context.Channel.IsWritable;

    /// <summary>Whether a fragmented message was started and its final fragment not sent yet (event loop).</summary>
    internal bool InMessage => _order.InMessage;

    /// <summary>The broadcast inbox if the websocket ever joined a group.</summary>
    internal ChannelInbox? InboxIfAny => Volatile.Read(ref _inbox);

    BroadcastInbox IWebSocketGroupMember.BroadcastInbox =>
        Volatile.Read(ref _inbox) ?? Interlocked.CompareExchange(ref _inbox, new ChannelInbox(_handler, _output, this), null) ?? _inbox;

    /// <summary>Whether the caller is on the channel's event loop, where the synchronous methods may be used.</summary>
    public bool IsOnEventLoop => _handler.InEventLoop;

    /// <summary>The negotiated subprotocol, if any.</summary>
    public string? Subprotocol => _handler.Subprotocol;

    /// <summary>Tier 1 (frame factory): reserves a frame in the output; write the payload into
    /// <see cref="ReservedFrame.Payload"/>, then <see cref="ReservedFrame.Commit"/> (which masks for a client). After
    /// our Close the frame is reserved in scratch memory and dropped.</summary>
    public ReservedFrame Reserve(WebSocketOpcode opcode, int payloadLength, bool fin = true) =>
        _encoder.Reserve(SyncTarget(opcode, fin), opcode, payloadLength, fin);

    private readonly record struct PendingSend(WebSocketOpcode Opcode, ReadOnlyMemory<byte> Payload, bool Fin, TaskCompletionSource Done);

    /// <summary>Copies <paramref name="payload"/> into a frame in the output (masking the copy for a client).</summary>
    /// <returns>False when the frame was dropped: our Close was sent, or the channel is closed.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Send(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        _handler.CheckOnLoop();
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (!_handler.CanSend)
        {
            return false;
        }

        WriteData(opcode, payload, fin);
        LoopSent = true;
        return true;
    }

    /// <summary>Without waiting, from any thread: sends one frame unless the channel is above its high water mark or
    /// can no longer send (then nothing is sent). Off the event loop the payload is copied and sent on it; frames taken
    /// that way and not yet on the channel count against the high water mark too, so a caller that never waits cannot
    /// queue more than that.</summary>
    /// <returns>Whether the frame was taken.</returns>
    public bool TrySend(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (!_handler.CanSend || !IsWritable)
        {
            return false;
        }

        if (IsOnEventLoop)
        {
            return Send(opcode, payload, fin);
        }

        int length = payload.Length;
        long queued = Interlocked.Add(ref _queuedBytes, length);
        if (queued > _handler.HighWaterMark && queued != length) // one frame alone may exceed the mark
        {
            Interlocked.Add(ref _queuedBytes, -length); // frames on their way to the channel fill the mark already
            return false;
        }

        byte[] copy = ArrayPool<byte>.Shared.Rent(Math.Max(1, length));
        payload.CopyTo(copy);
        _handler.Context.Executor.Execute(() =>
        {
            Interlocked.Add(ref _queuedBytes, -length);
            try
            {
                if (Send(opcode, copy.AsSpan(0, length), fin))
                {
                    _output.Flush();
                }
            }
            catch (InvalidOperationException)
            {
                // Out of fragment order: as a synchronous Send would have thrown, the frame is not sent.
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(copy);
            }
        });
        return true;
    }

    /// <summary>A pooled buffer for <see cref="SendPrefixed"/>: <see cref="PrefixRoom"/> bytes left free in front, its
    /// reader and writer index after them; write the payload, then send it. Any thread may call it: off SpanNetty's
    /// event loops the buffer comes from SpanNetty's array-pool allocator, as SpanNetty's pooled allocator is not safe
    /// on other threads.</summary>
    public IByteBuffer AllocatePrefixed(int payloadCapacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(payloadCapacity);
        IByteBuffer buffer = ThreadSafeAllocation.For(Allocator).Buffer(PrefixRoom + payloadCapacity);
        buffer.SetIndex(PrefixRoom, PrefixRoom);
        return buffer;
    }

    /// <summary>Tier 2 (prefix encoder): the readable bytes of <paramref name="frame"/> are the payload; the header is
    /// written into the room in front of them (see <see cref="AllocatePrefixed"/>), a client's payload is masked in
    /// place, and the buffer itself is written: the payload is never copied. Takes ownership of the buffer (it is
    /// released if it cannot be sent).</summary>
    /// <returns>False when the frame was dropped (and the buffer released): our Close was sent, or the channel is
    /// closed.</returns>
    public bool SendPrefixed(IByteBuffer frame, WebSocketOpcode opcode, bool fin = true)
    {
        ArgumentNullException.ThrowIfNull(frame);
        OutboundFragmentOrder order = _order;
        try
        {
            _handler.CheckOnLoop();
            OutboundFragmentOrder.CheckDataOpcode(opcode);
            if (!_handler.CanSend)
            {
                frame.Release();
                return false;
            }

            order.Next(opcode, fin);
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

        _order = order; // recorded once the frame is encoded
        LoopSent = true;
        _output.WriteOut(frame);
        return true;
    }

    /// <summary>Tier 3 (bulk encoder): packs many frames into the output's buffer; call
    /// <see cref="BulkFrameWriter.Complete"/> when done. Frame order within a message is yours to keep. After our
    /// Close the frames go to scratch memory and are dropped.</summary>
    public BulkFrameWriter BeginBulk(int sizeHint = 16 * 1024)
    {
        _handler.CheckOnLoop();
        LoopSent = true;
        return new BulkFrameWriter(_encoder, _handler.CanSend ? _output : Discard, sizeHint);
    }

    /// <summary>Writes out and flushes what was sent so far (the handler does this at the end of every read cycle).</summary>
    public void Flush()
    {
        _handler.CheckOnLoop();
        _output.Flush();
    }

    /// <summary>From any thread: sends one frame and flushes, on the event loop; while the channel is above its high
    /// water mark the frame waits (in order with other waiting sends) until it is writable again. The payload must stay
    /// unchanged until the task completes.</summary>
    /// <param name="opcode">Text, Binary or Continuation.</param>
    /// <param name="payload">The payload.</param>
    /// <param name="fin">Whether this frame ends its message.</param>
    /// <param name="cancellationToken">Stops waiting: a frame already queued still goes out, in order (a websocket
    /// cannot drop half a message), so cancel only to give up on the websocket.</param>
    /// <returns>Completes when the frame was written and flushed.</returns>
    /// <exception cref="InvalidOperationException">The websocket is closing or closed (in the task).</exception>
    public Task SendAsync(WebSocketOpcode opcode, ReadOnlyMemory<byte> payload, bool fin = true, CancellationToken cancellationToken = default)
    {
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var send = new PendingSend(opcode, payload, fin, done);
        if (IsOnEventLoop)
        {
            Enqueue(send);
        }
        else
        {
            _handler.Context.Executor.Execute(static (state, item) => ((ChannelFrameSender)state).Enqueue((PendingSend)item), this, send);
        }

        return cancellationToken.CanBeCanceled ? done.Task.WaitAsync(cancellationToken) : done.Task;
    }

    /// <summary>The channel's writability changed (on the event loop): waiting sends go out once it is writable.</summary>
    internal void OnWritabilityChanged(bool writable)
    {
        if (writable)
        {
            SendWaiting();
        }
    }

    /// <summary>The websocket ended: waiting sends fail.</summary>
    internal void FailWaiting()
    {
        while (_waiting is { Count: > 0 })
        {
            _waiting.Dequeue().Done.TrySetException(new InvalidOperationException("The websocket closed before the frame could be sent."));
        }
    }

    private void Enqueue(PendingSend send)
    {
        (_waiting ??= new Queue<PendingSend>()).Enqueue(send);
        SendWaiting();
    }

    private void SendWaiting()
    {
        bool sent = false;
        while (_waiting is { Count: > 0 } && (IsWritable || !_handler.CanSend))
        {
            PendingSend send = _waiting.Dequeue();
            try
            {
                _handler.CheckCanSend();
                Send(send.Opcode, send.Payload.Span, send.Fin);
                sent = true;
                send.Done.TrySetResult();
            }
            catch (Exception error)
            {
                send.Done.TrySetException(error);
            }
        }

        if (sent)
        {
            _output.Flush();
        }
    }

    /// <summary>Starts the close handshake (a Close with <paramref name="status"/>; nothing if one was sent already);
    /// completes when the websocket has ended.</summary>
    /// <param name="status">The close status.</param>
    /// <param name="reason">The close reason (at most 123 UTF-8 bytes).</param>
    /// <param name="cancellationToken">Stops waiting (the close handshake goes on).</param>
    /// <returns>How the websocket ended.</returns>
    public Task<WebSocketCloseInfo> CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default) =>
        _handler.CloseAsync(status, reason).WaitAsync(cancellationToken);

    private ArrayBufferWriter<byte> Discard
    {
        get
        {
            _discard ??= new ArrayBufferWriter<byte>(256);
            _discard.ResetWrittenCount();
            return _discard;
        }
    }

    /// <summary>Where a synchronous send on the event loop writes: the output, or scratch memory after our Close.</summary>
    private IBufferWriter<byte> SyncTarget(WebSocketOpcode opcode, bool fin)
    {
        _handler.CheckOnLoop();
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (!_handler.CanSend)
        {
            return Discard;
        }

        _order.Next(opcode, fin);
        LoopSent = true;
        return _output;
    }
}
