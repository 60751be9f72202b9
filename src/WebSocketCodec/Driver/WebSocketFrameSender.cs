using System.Buffers;
using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>Sends frames on one websocket, in the three tiers of the core encoder, into the connection's outbound side:
/// the sending half of the callbacks API, which every listener factory is handed, for frames from the read loop
/// (<see cref="Send"/>) and from any other thread (<see cref="SendAsync"/>, <see cref="TrySend"/>).</summary>
/// <remarks>The synchronous methods are for the read loop (inside <see cref="IWebSocketFrameListener.OnFrame"/>); the
/// loop flushes once after each read. From any other thread use <see cref="SendAsync"/>,
/// <see cref="SendBulkAsync{TState}"/> or <see cref="TrySend"/>: appending takes a short lock, so frames keep one order
/// with the loop's own Pongs and Close, and never waits for the network. While the read loop dispatches a read it owns
/// the output: another thread never waits for it (a whole message waits in the websocket's queue for the read's end, in
/// order). After our Close (or once the transport is gone) the synchronous methods drop their frames and report it
/// (<see cref="Send"/> returns false); only <see cref="CloseAsync"/> sends a Close.</remarks>
public sealed partial class WebSocketFrameSender
{
    private readonly WebSocketDriver _connection;
    private readonly DriverOutput _output;
    private readonly FrameEncoder _encoder;
    private OutboundFragmentOrder _order;
    private ArrayBufferWriter<byte>? _discard;

    /// <summary>Set by the synchronous sends (the listener answered what it read); the read loop clears and reads it.</summary>
    internal bool LoopSent;

    internal WebSocketFrameSender(WebSocketDriver connection, DriverOutput output, FrameEncoder encoder)
    {
        _connection = connection;
        _output = output;
        _encoder = encoder;
    }

    /// <summary>The encoder (for header lengths and the prefix tier on buffers of your own).</summary>
    public FrameEncoder Encoder => _encoder;

    /// <summary>The websocket this sender writes to.</summary>
    public WebSocketDriver Driver => _connection;

    /// <summary>Whether data frames may still be sent (no Close sent yet and the transport is up).</summary>
    public bool CanSend => _connection.CanSend;

    /// <summary>Whether outbound bytes are under the high water mark (see <see cref="WebSocketDriver.IsWritable"/>).</summary>
    public bool IsWritable => _output.IsWritable;

    /// <summary>Whether a fragmented message was started and its final fragment not sent yet (under the output's lock).</summary>
    internal bool InMessage => _order.InMessage;

    /// <summary>Whether the caller is on the read loop, where the synchronous methods may be used.</summary>
    public bool IsOnReadLoop => _connection.IsOnReadLoop;

    /// <summary>Tier 1 (frame factory): reserves a frame in the output; write the payload into
    /// <see cref="ReservedFrame.Payload"/>, then <see cref="ReservedFrame.Commit"/> (which masks for a client). After
    /// our Close the frame is reserved in scratch memory and dropped.</summary>
    public ReservedFrame Reserve(WebSocketOpcode opcode, int payloadLength, bool fin = true) =>
        _encoder.Reserve(SyncTarget(opcode, fin), opcode, payloadLength, fin);

    /// <summary>Copies <paramref name="payload"/> into a frame in the output (masking the copy for a client).</summary>
    /// <returns>False when the frame was dropped: our Close was sent, or the transport is gone.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Send(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        _connection.CheckOnReadLoop();
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (!_connection.CanSend)
        {
            return false;
        }

        WriteData(opcode, payload, fin);
        LoopSent = true;
        return true;
    }

    /// <summary>Tier 2 (prefix encoder): writes the header into the room in front of a payload you already hold in
    /// <paramref name="buffer"/> at <paramref name="payloadOffset"/> (masking it in place for a client), then the
    /// frame into the output.</summary>
    /// <returns>The frame's length; 0 when it was dropped (after our Close).</returns>
    public int SendPrefixed(Span<byte> buffer, int payloadOffset, int payloadLength, WebSocketOpcode opcode, bool fin = true)
    {
        IBufferWriter<byte> target = SyncTarget(opcode, fin);
        int start = _encoder.EncodePrefix(buffer, payloadOffset, payloadLength, opcode, fin);
        ReadOnlySpan<byte> frame = buffer.Slice(start, payloadOffset + payloadLength - start);
        target.Write(frame);
        return target == _discard ? 0 : frame.Length;
    }

    /// <summary>Tier 3 (bulk encoder): packs many frames into the output's buffer; call
    /// <see cref="BulkFrameWriter.Complete"/> when done. Frame order within a message is yours to keep. After our
    /// Close the frames go to scratch memory and are dropped.</summary>
    public BulkFrameWriter BeginBulk(int sizeHint = 16 * 1024)
    {
        _connection.CheckOnReadLoop();
        LoopSent = true;
        return new BulkFrameWriter(_encoder, _connection.CanSend ? _output.Current : Discard, sizeHint);
    }

    /// <summary>From any thread, without waiting: appends one frame unless the websocket is above its high water mark
    /// or can no longer send, and starts a flush. While the read loop dispatches a read (it owns the output then), a
    /// whole message waits in the websocket's queue for the read's end (this call does not wait), and a fragment or a
    /// Ping is not sent (false).</summary>
    /// <returns>Whether the frame was appended or queued (false: not writable now, or closing, or a fragment or Ping
    /// while the loop dispatches; nothing was sent).</returns>
    public bool TrySend(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin = true)
    {
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (!_output.TryEnter())
        {
            return TryQueue(opcode, payload, fin);
        }

        bool stopped;
        try
        {
            if (!_connection.CanSend || !_output.IsWritable || !_connection.DrainInboxLocked())
            {
                return false;
            }

            WriteData(opcode, payload, fin);
            stopped = AfterWriteLocked();
        }
        finally
        {
            Monitor.Exit(_output.Sync);
        }

        Flush(stopped);
        return true;
    }

    /// <summary>From any thread: waits while the websocket is above its high water mark, then appends one frame and
    /// starts a flush (it does not wait for the network). On the read loop it is <see cref="Send"/>. While the loop
    /// dispatches a read (it owns the output then), a whole message waits in the websocket's queue for the read's end
    /// and this completes at once; a fragment or a Ping waits for the read's end. No thread ever waits for a
    /// listener.</summary>
    /// <exception cref="InvalidOperationException">The websocket is closing or closed.</exception>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask SendAsync(
        WebSocketOpcode opcode, ReadOnlyMemory<byte> payload, bool fin = true, CancellationToken cancellationToken = default)
    {
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (_connection.IsOnReadLoop)
        {
            Send(opcode, payload.Span, fin);
            return;
        }

        while (true)
        {
            await WaitWritableAsync(cancellationToken).ConfigureAwait(false);
            if (_output.TryEnter())
            {
                bool stopped;
                try
                {
                    _connection.CheckCanSend();
                    if (!_connection.DrainInboxLocked())
                    {
                        _connection.CheckCanSend(); // the drain started a slow member's close: nothing goes after it
                    }

                    WriteData(opcode, payload.Span, fin);
                    stopped = AfterWriteLocked();
                }
                finally
                {
                    Monitor.Exit(_output.Sync);
                }

                Flush(stopped);
                return;
            }

            _connection.CheckCanSend();
            if (TryQueue(opcode, payload.Span, fin))
            {
                return;
            }

            // A fragment or a Ping, or the queue is full: after the loop's read, try again.
            await _output.ReadEndedAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>From any thread: waits while the websocket is above its high water mark (and while the read loop
    /// dispatches a read), then packs frames with <paramref name="write"/> into one buffer and starts one flush.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask SendBulkAsync<TState>(
        BulkWriteAction<TState> write, TState state, int sizeHint = 16 * 1024, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(write);
        if (_connection.IsOnReadLoop)
        {
            LoopSent = true;
            WriteBulk(write, state, _connection.CanSend ? _output.Current : Discard, sizeHint);
            return;
        }

        while (true)
        {
            await WaitWritableAsync(cancellationToken).ConfigureAwait(false);
            if (!_output.TryEnter())
            {
                await _output.ReadEndedAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
                continue;
            }

            bool stopped;
            try
            {
                _connection.CheckCanSend();
                if (!_connection.DrainInboxLocked())
                {
                    _connection.CheckCanSend(); // the drain started a slow member's close: nothing goes after it
                }

                WriteBulk(write, state, _output.Current, sizeHint);
                stopped = AfterWriteLocked();
            }
            finally
            {
                Monitor.Exit(_output.Sync);
            }

            Flush(stopped);
            return;
        }
    }

    /// <summary>
    /// Completes when the transport has taken every frame sent so far on this websocket (true), or when the output
    /// ended before it did (false). <c>SendAsync</c> completes when its frame is in the websocket's output, in order;
    /// this says when the output reached the transport (a pipe, a socket's buffer, a channel): an application that
    /// must know its bytes left, before it reports a message delivered, say, awaits it. Any thread; on the read loop
    /// the loop's flush after the read takes the frames.
    /// </summary>
    public Task<bool> FlushedAsync()
    {
        if (_connection.IsOnReadLoop)
        {
            return _output.FlushedLocked(); // the loop holds the lock for its dispatch, and flushes after it
        }

        return _output.TryEnter() ? FlushedEntered() : FlushedAfterReadAsync();
    }

    private async Task<bool> FlushedAfterReadAsync()
    {
        do
        {
            await _output.ReadEndedAsync().ConfigureAwait(false);
        }
        while (!_output.TryEnter());

        return await FlushedEntered().ConfigureAwait(false);
    }

    /// <summary><see cref="FlushedAsync"/> with the output's lock taken (released here): what waits in the queue goes
    /// first, and counts.</summary>
    private Task<bool> FlushedEntered()
    {
        Task<bool> flushed;
        try
        {
            _connection.DrainInboxLocked();
            flushed = _output.FlushedLocked();
        }
        finally
        {
            Monitor.Exit(_output.Sync);
        }

        if (!flushed.IsCompleted)
        {
            _output.Flush(); // a flush under way takes them behind its bytes; otherwise this one does
        }

        return flushed;
    }

    /// <summary>Closes, and completes when the websocket has ended (see <see cref="WebSocketDriver.CloseAsync"/>).</summary>
    public Task<WebSocketCloseInfo> CloseAsync(CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default) =>
        _connection.CloseAsync(status, reason, cancellationToken);

    /// <summary>Appends one of this websocket's own messages that waited in its queue (under the output's lock, no
    /// fragmented message in progress).</summary>
    internal void AppendQueuedLocked(WebSocketOpcode opcode, ReadOnlySpan<byte> payload) => WriteData(opcode, payload, fin: true);

    /// <summary>While the loop dispatches a read: queues a whole Text or Binary message for the read's end, if the
    /// websocket can send and the queue has room (a high water mark's worth). A fragment or a Ping is never queued: it
    /// belongs between the fragments its thread sends directly, and in the queue it could wait behind a whole message
    /// that waits for the end of a fragmented message in progress.</summary>
    /// <returns>Whether it was queued.</returns>
    private bool TryQueue(WebSocketOpcode opcode, ReadOnlySpan<byte> payload, bool fin)
    {
        if (!fin || opcode is not (WebSocketOpcode.Text or WebSocketOpcode.Binary) || !_connection.CanSend || !_output.IsWritable)
        {
            return false;
        }

        DriverInbox inbox = _connection.Inbox;
        long queued = inbox.QueuedBytes;
        if (queued > 0 && queued + payload.Length + FrameHeaderReader.MaxHeaderLength > _connection.Options.OutboundHighWaterMark)
        {
            return false; // the queue holds a high water mark's worth already
        }

        using BroadcastFrame message = BroadcastFrame.CreateUnencoded(opcode, payload, _connection.Options.Pool);
        return inbox.Enqueue(message);
    }

    /// <summary>After a frame was appended from another thread: a message that ended lets what waited behind it in
    /// the queue go; then the water marks apply.</summary>
    /// <returns>Whether the websocket just stopped being writable.</returns>
    private bool AfterWriteLocked()
    {
        if (!_order.InMessage)
        {
            _connection.DrainInboxLocked();
        }

        return _output.AfterAppendLocked();
    }

    private ArrayBufferWriter<byte> Discard
    {
        get
        {
            _discard ??= new ArrayBufferWriter<byte>(256);
            _discard.ResetWrittenCount();
            return _discard;
        }
    }

    private void WriteBulk<TState>(BulkWriteAction<TState> write, TState state, IBufferWriter<byte> target, int sizeHint)
    {
        var bulk = new BulkFrameWriter(_encoder, target, sizeHint);
        write(ref bulk, state);
        bulk.Complete();
    }

    private async ValueTask WaitWritableAsync(CancellationToken cancellationToken)
    {
        while (!_output.IsWritable && !_output.IsEnded)
        {
            await _output.WaitWritableAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    private void Flush(bool stopped)
    {
        if (stopped)
        {
            _output.ReportWritability(false);
        }

        _output.Flush();
    }

    /// <summary>Where a synchronous send on the loop writes: the output, or scratch memory after our Close.</summary>
    private IBufferWriter<byte> SyncTarget(WebSocketOpcode opcode, bool fin)
    {
        _connection.CheckOnReadLoop();
        OutboundFragmentOrder.CheckDataOpcode(opcode);
        if (!_connection.CanSend)
        {
            return Discard;
        }

        _order.Next(opcode, fin);
        LoopSent = true;
        return _output.Current;
    }
}
