using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Text;

namespace WebSocketCodec;

/// <summary>The protocol state of one websocket with no I/O: use it directly only in a driver of your own that does its
/// own I/O and locking; <see cref="WebSocketDriver"/> runs one for every host, and a new transport plugs into it
/// through <see cref="IWebSocketTransport"/>. Not thread-safe: the driver's read loop owns it, and writes its pending
/// output under the same lock as its other sends.</summary>
/// <remarks>Fed received bytes and the time, it decodes frames, answers Pings, runs the close handshake, applies
/// keep-alive, idle and close timeouts, and queues the control frames its driver must write
/// (<see cref="PendingOutput"/>). Data frames (and, for information, control frames) go to the driver's handler. A
/// frame that does not arrive whole in one <see cref="Receive{THandler}(Span{byte}, ref THandler, out int)"/> call is
/// gathered into a pooled buffer chunk by chunk, so nothing is unmasked twice and nothing is copied more than
/// once.</remarks>
public sealed partial class WebSocketSession : IDisposable
{
    private FrameDecoder _decoder; // replaced once by EnablePerMessageDeflate, before the first Receive
    private readonly FrameEncoder _encoder;
    private readonly ArrayPool<byte> _pool;
    private readonly TimeProvider _time;
    private readonly WebSocketSessionOptions _options;
    private ArrayBufferWriter<byte>? _pending; // made on first use: drivers that set Output never need it

    private FrameGather? _gather; // made for the first frame that arrives across reads
    private FrameHeader _frameHeader;
    private HeaderCarry _carry;
    private int _handlerInputEnd;
    private byte[]? _pongPayload;
    private int _pongLength = -1; // -1: no Pong pending

    private long _lastReceived;
    private long _lastPing;
    private long _closeSentAt;
    private long _pingCounter;
    private bool _pingOutstanding;
    private long _receivedAfterClose; // bytes received while our Close waits for the peer's
    private long _gatherStartedAt; // when the header of the frame being gathered arrived

    /// <summary>Creates the session of one end of a connection, just after the opening handshake.</summary>
    public WebSocketSession(WebSocketRole role, WebSocketSessionOptions? options = null, MaskKeyGenerator? maskKeys = null)
    {
        _options = options ?? WebSocketSessionOptions.Default;
        _options.Validate();
        Role = role;
        _decoder = new FrameDecoder(role, _options.ToDecoderOptions());
        _encoder = new FrameEncoder(role, maskKeys);
        _pool = _options.Pool ?? ArrayPool<byte>.Shared;
        _time = _options.TimeProvider ?? TimeProvider.System;
        _lastReceived = _lastPing = _time.GetTimestamp();
    }

    /// <summary>The end of the connection this session runs.</summary>
    public WebSocketRole Role { get; }

    /// <summary>The options in force.</summary>
    public WebSocketSessionOptions Options => _options;

    /// <summary>The encoder for this end's outbound frames (masks when the role is client).</summary>
    public FrameEncoder Encoder => _encoder;

    /// <summary>The session's state.</summary>
    public WebSocketSessionState State { get; private set; }

    /// <summary>The rule the peer broke, if that is what ended the session.</summary>
    public ProtocolViolation Violation => _decoder.Violation;

    /// <summary>What ended or is ending the session when it was not a violation (timeouts), else null.</summary>
    internal SessionTimerResult? Timeout { get; private set; }

    /// <summary>The status of the Close we sent (or queued), if any.</summary>
    public CloseStatus? SentCloseStatus { get; private set; }

    /// <summary>The status of the peer's Close: its code, <see cref="CloseStatus.NoStatusReceived"/> for an empty
    /// Close; null when none arrived.</summary>
    public CloseStatus? ReceivedCloseStatus { get; private set; }

    /// <summary>The reason text of the peer's Close.</summary>
    public string? ReceivedCloseReason { get; private set; }

    /// <summary>
    /// Where the session writes its control frames (Pongs, Close, keep-alive Pings). Null (the default) keeps them in
    /// <see cref="PendingOutput"/> for the driver to copy. A driver that serializes every call into the session with
    /// its other writes (under one lock) sets its output here: control frames then keep their order among the
    /// application's frames, e.g. a Pong for a Ping that arrived mid-message goes out before that message's echo.
    /// </summary>
    public IBufferWriter<byte>? Output { get; set; }

    private IBufferWriter<byte> ControlOutput => Output ?? (_pending ??= new ArrayBufferWriter<byte>(256));

    /// <summary>Whether control frames wait to be written.</summary>
    internal bool HasPendingOutput => _pending is { WrittenCount: > 0 };

    /// <summary>Control frames to write (Pongs, our Close, keep-alive Pings), in order.</summary>
    internal ReadOnlySpan<byte> PendingOutput => _pending is null ? default : _pending.WrittenSpan;

    /// <summary>Forgets the pending output once the driver wrote it.</summary>
    internal void ClearPendingOutput() => _pending?.ResetWrittenCount();

    /// <summary>Copies the pending output into <paramref name="output"/> and forgets it.</summary>
    public void WritePendingOutput(IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(output);
        if (_pending is { WrittenCount: > 0 })
        {
            output.Write(_pending.WrittenSpan);
            _pending.ResetWrittenCount();
        }
    }

    /// <summary>
    /// Decodes frames from <paramref name="input"/> (unmasking payloads in place), handles control frames and hands
    /// every whole frame to <paramref name="handler"/>: data frames to act on, Ping, Pong and Close for information
    /// (the session already answered them).
    /// </summary>
    /// <param name="input">Received bytes, from where the last call stopped consuming.</param>
    /// <param name="handler">Receives frames; a struct, so calls are devirtualized.</param>
    /// <param name="consumed">Bytes used: release them. The rest (a partial header) must be offered again with
    /// more bytes behind it.</param>
    /// <returns>NeedMoreData to go on reading; Done when the handler stopped or the session closed (see
    /// <see cref="State"/>); InvalidData on a violation (a Close with its status is queued unless one was sent
    /// before).</returns>
    public OperationStatus Receive<THandler>(Span<byte> input, ref THandler handler, out int consumed)
        where THandler : struct, IFrameHandler =>
        Receive(input, input.IsEmpty ? 0 : _time.GetTimestamp(), ref handler, out consumed);

    /// <summary>
    /// <see cref="Receive{THandler}(Span{byte}, ref THandler, out int)"/> with the time the bytes arrived given by the
    /// caller: a driver that hands one read over in several pieces (one per buffer segment) reads the clock once.
    /// </summary>
    /// <param name="input">Received bytes, from where the last call stopped consuming.</param>
    /// <param name="receivedAt">When they arrived, from <see cref="WebSocketSessionOptions.TimeProvider"/>'s
    /// <c>GetTimestamp()</c> (the idle and keep-alive timers count from it).</param>
    /// <param name="handler">Receives frames; a struct, so calls are devirtualized.</param>
    /// <param name="consumed">Bytes used.</param>
    public OperationStatus Receive<THandler>(Span<byte> input, long receivedAt, ref THandler handler, out int consumed)
        where THandler : struct, IFrameHandler
    {
        OperationStatus status = ReceiveCore(input, receivedAt, ref handler, out consumed);
        if (_pongLength >= 0)
        {
            WritePendingPong(); // one Pong for the Pings of this input: the latest's (RFC 6455 §5.5.3)
        }

        if (State == WebSocketSessionState.CloseSent && !_draining)
        {
            // Waiting for the peer's Close after ours is bounded in bytes as well as in time: a peer that goes on
            // sending (one that never reads our Close, say) is not read for the whole close timeout. A peer that does
            // answer may first finish the message it was sending and what was in flight: one message plus the drain's
            // allowance.
            _receivedAfterClose += consumed;
            if (_receivedAfterClose >= _options.MaxMessagePayloadLength + _options.MaxDrainBytes)
            {
                EndBy(SessionTimerResult.CloseTimeout);
            }
        }

        return status;
    }

    private OperationStatus ReceiveCore<THandler>(Span<byte> input, long receivedAt, ref THandler handler, out int consumed)
        where THandler : struct, IFrameHandler
    {
        consumed = 0;
        if (State == WebSocketSessionState.Closed)
        {
            return OperationStatus.Done;
        }

        if (!input.IsEmpty)
        {
            _lastReceived = receivedAt;
        }

        if (_draining)
        {
            consumed = Drain(input);
            return State == WebSocketSessionState.Closed ? OperationStatus.Done : OperationStatus.NeedMoreData;
        }

        int offset = 0;
        while (true)
        {
            Span<byte> rest = input.Slice(offset);
            FrameHeader header;
            Span<byte> payload;
            if (_gather is { IsActive: true })
            {
                int take = (int)Math.Min(rest.Length, _decoder.PayloadRemaining);
                Span<byte> chunk = rest.Slice(0, take);
                OperationStatus chunkStatus = _decoder.ProcessPayload(chunk);
                offset += take;
                if (chunkStatus == OperationStatus.InvalidData)
                {
                    return Violated(input, offset, _frameHeader, out consumed);
                }

                _gather!.Append(chunk);
                if (chunkStatus == OperationStatus.NeedMoreData)
                {
                    if (FrameTooSlow(receivedAt))
                    {
                        _decoder.FailInPayload(ProtocolViolation.FrameTooSlow);
                        return Violated(input, offset, _frameHeader, out consumed);
                    }

                    consumed = offset;
                    return OperationStatus.NeedMoreData;
                }

                header = _frameHeader;
                payload = _gather!.Complete();
            }
            else if (_carry.Length > 0)
            {
                // A header cut at the end of the last input: complete it from this one.
                ReadOnlySpan<byte> headerBytes = _carry.Fill(rest, out int taken);
                OperationStatus status = _decoder.ReadHeader(headerBytes, out header, out _);
                if (status == OperationStatus.NeedMoreData)
                {
                    // Fill stops at the longest header, so this means every byte given so far is part of it.
                    _carry.Keep(taken);
                    consumed = offset + taken;
                    return OperationStatus.NeedMoreData;
                }

                if (status == OperationStatus.InvalidData)
                {
                    // The refused header starts in the carry: the drain reads it from there.
                    return Violated(input, offset, header, out consumed);
                }

                offset += header.HeaderLength - _carry.Length;
                _carry.Clear();
                if (!TakePayload(input, ref offset, header, out payload, out OperationStatus payloadStatus))
                {
                    if (payloadStatus == OperationStatus.InvalidData)
                    {
                        return Violated(input, offset, header, out consumed);
                    }

                    consumed = offset;
                    return OperationStatus.NeedMoreData;
                }
            }
            else
            {
                if (rest.IsEmpty)
                {
                    consumed = offset;
                    return OperationStatus.NeedMoreData;
                }

                OperationStatus status = _decoder.ReadFrame(rest, out header, out payload, out _);
                if (status == OperationStatus.NeedMoreData)
                {
                    status = _decoder.ReadHeader(rest, out header, out _);
                    if (status == OperationStatus.Done)
                    {
                        // The header is here, the payload not all: gather it as it comes.
                        offset += header.HeaderLength;
                        StartGather(header);
                        continue;
                    }

                    if (status == OperationStatus.NeedMoreData)
                    {
                        _carry.Start(rest);
                        consumed = input.Length;
                        return OperationStatus.NeedMoreData;
                    }
                }

                if (status != OperationStatus.Done)
                {
                    if (!_decoder.ViolationAtHeader)
                    {
                        offset += (int)header.FrameLength; // a whole frame whose payload broke a rule
                    }

                    return Violated(input, offset, header, out consumed);
                }

                offset += (int)header.FrameLength;
            }

            _handlerInputEnd = offset;
            bool inflated = false;
            if (IsCompressed(header))
            {
                if (Inflate(header, payload, out FrameHeader inflatedHeader) != ProtocolViolation.None)
                {
                    return Violated(input, offset, header, out consumed); // the whole frame was consumed
                }

                header = inflatedHeader;
                payload = Inflated;
                inflated = true;
            }

            bool goOn = OnFrame(header, payload, ref handler);
            if (_gather is { IsActive: true })
            {
                _gather?.Release();
            }

            if (inflated && !_inflatingMessage)
            {
                ReleaseInflateBuffers(); // an idle websocket holds no inflate buffer
            }

            if (!goOn)
            {
                consumed = offset;
                return OperationStatus.Done;
            }
        }
    }

    /// <summary>
    /// After the handler threw out of <see cref="Receive{THandler}(Span{byte}, long, ref THandler, out int)"/>: forgets
    /// the frame it was given, queues a Close with <paramref name="status"/> (1011 by default) unless one was sent, and
    /// fails the connection as a violation does (RFC 6455 §7.1.7): nothing more is parsed or delivered, the peer's
    /// Close included; input is discarded (see <see cref="IsDraining"/>) until the transport's end or the bounds.
    /// </summary>
    /// <returns>How many bytes of the input of that call were consumed: offer the rest to <c>Receive</c> (it is
    /// discarded there and counts against <see cref="WebSocketSessionOptions.MaxDrainBytes"/>).</returns>
    public int OnHandlerFailed(CloseStatus status = CloseStatus.InternalError, string? reason = "internal error")
    {
        if (_gather is { IsActive: true })
        {
            _gather?.Release();
        }

        WritePendingPong();
        StartClose(status, reason);
        if (State != WebSocketSessionState.Closed)
        {
            _carry.Clear();
            _draining = true;
        }

        return _handlerInputEnd;
    }

    /// <summary>Whether the session failed the connection (a violation, or a failed handler): its Close is queued, and
    /// from then on input is only counted and discarded, never parsed (RFC 6455 §7.1.7: not even the peer's Close). The
    /// driver ends its output right after that Close (a half-close: TCP FIN, or END_STREAM) and closes the transport at
    /// the transport's end, the close timeout, or <see cref="WebSocketSessionOptions.MaxDrainBytes"/>.</summary>
    public bool IsDraining => _draining;

    /// <summary>Starts the close handshake from this side: queues a Close with <paramref name="status"/> and
    /// <paramref name="reason"/> (at most 123 UTF-8 bytes). Does nothing once a Close was sent.</summary>
    /// <returns>Whether a Close was queued.</returns>
    public bool StartClose(CloseStatus status = CloseStatus.NormalClosure, string? reason = null)
    {
        if (State != WebSocketSessionState.Open)
        {
            return false;
        }

        Span<byte> payload = stackalloc byte[125];
        int length = ClosePayload.Write(payload, status, reason);
        QueueClose(status, payload.Slice(0, length));
        return true;
    }

    /// <summary>Ends the session without a handshake (the transport failed or was aborted) and returns its pooled
    /// buffers and permessage-deflate state; call it where the input ends, not during a <c>Receive</c>.</summary>
    public void Abort()
    {
        State = WebSocketSessionState.Closed;
        _gather?.Release();
        ReleaseInflater();
    }

    /// <summary>
    /// How long until <see cref="OnTimer"/> should run next, from now; <see cref="System.Threading.Timeout.InfiniteTimeSpan"/> when
    /// no timer is armed.
    /// </summary>
    public TimeSpan NextTimerDue
    {
        get
        {
            long now = _time.GetTimestamp();
            TimeSpan due = System.Threading.Timeout.InfiniteTimeSpan;
            if (State == WebSocketSessionState.CloseSent)
            {
                return Remaining(_closeSentAt, _options.CloseTimeout, now);
            }

            if (State != WebSocketSessionState.Open)
            {
                return due;
            }

            if (_options.IdleTimeout > TimeSpan.Zero)
            {
                due = Min(due, Remaining(_lastReceived, _options.IdleTimeout, now));
            }

            if (_pingOutstanding && _options.KeepAliveTimeout > TimeSpan.Zero)
            {
                due = Min(due, Remaining(_lastPing, _options.KeepAliveTimeout, now));
            }
            else if (_options.KeepAliveInterval > TimeSpan.Zero)
            {
                due = Min(due, Remaining(Math.Max(_lastPing, _lastReceived), _options.KeepAliveInterval, now));
            }

            return due;
        }
    }

    /// <summary>Applies the timeouts at the current time and says what the driver must do.</summary>
    public SessionTimerResult OnTimer()
    {
        long now = _time.GetTimestamp();
        switch (State)
        {
            case WebSocketSessionState.CloseSent:
                if (_time.GetElapsedTime(_closeSentAt, now) >= _options.CloseTimeout)
                {
                    return EndBy(SessionTimerResult.CloseTimeout);
                }

                return SessionTimerResult.None;
            case WebSocketSessionState.Closed:
                return SessionTimerResult.None;
        }

        if (_options.IdleTimeout > TimeSpan.Zero && _time.GetElapsedTime(_lastReceived, now) >= _options.IdleTimeout)
        {
            StartClose(CloseStatus.GoingAway, "idle timeout");
            Timeout = SessionTimerResult.IdleTimeout;
            return SessionTimerResult.IdleTimeout;
        }

        if (_pingOutstanding)
        {
            if (_options.KeepAliveTimeout > TimeSpan.Zero && _time.GetElapsedTime(_lastPing, now) >= _options.KeepAliveTimeout)
            {
                StartClose(CloseStatus.GoingAway, "keep-alive timeout");
                return EndBy(SessionTimerResult.KeepAliveTimeout);
            }

            return SessionTimerResult.None;
        }

        if (_options.KeepAliveInterval > TimeSpan.Zero
            && _time.GetElapsedTime(Math.Max(_lastPing, _lastReceived), now) >= _options.KeepAliveInterval)
        {
            Span<byte> payload = stackalloc byte[8];
            BinaryPrimitives.WriteInt64BigEndian(payload, ++_pingCounter);
            _encoder.Write(ControlOutput, WebSocketOpcode.Ping, payload);
            _lastPing = now;
            _pingOutstanding = _options.KeepAliveTimeout > TimeSpan.Zero;
            return SessionTimerResult.PingQueued;
        }

        return SessionTimerResult.None;
    }

    /// <summary>Returns the buffer of a partly gathered frame to the pool, and frees permessage-deflate's state.</summary>
    public void Dispose() => Abort();

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool OnFrame<THandler>(in FrameHeader header, Span<byte> payload, ref THandler handler)
        where THandler : struct, IFrameHandler
    {
        WebSocketOpcode opcode = header.Opcode;
        if (!header.IsControl)
        {
            if (_pongLength >= 0)
            {
                WritePendingPong(); // before anything the handler writes for this frame
            }

            return handler.OnFrame(opcode, header.Fin, header.Rsv, payload);
        }

        switch (opcode)
        {
            case WebSocketOpcode.Ping:
                // RFC 6455 §5.5.2: answered until the peer's Close arrives, also after we sent ours (only data frames
                // stop after our Close).
                // Pings in a row get one Pong, for the latest (RFC 6455 §5.5.3): a flood costs one Pong per input.
                if (State != WebSocketSessionState.Closed)
                {
                    _pongPayload ??= new byte[125];
                    payload.CopyTo(_pongPayload);
                    _pongLength = payload.Length;
                }

                break;
            case WebSocketOpcode.Pong:
                if (_pingOutstanding && payload.Length == 8 && BinaryPrimitives.ReadInt64BigEndian(payload) == _pingCounter)
                {
                    _pingOutstanding = false;
                }

                break;
            case WebSocketOpcode.Close:
                OnClose(payload);
                handler.OnFrame(opcode, true, header.Rsv, payload);
                return false;
        }

        return handler.OnFrame(opcode, true, header.Rsv, payload);
    }

    private void OnClose(ReadOnlySpan<byte> payload)
    {
        // The decoder has validated the status and the reason.
        var status = payload.Length >= 2 ? (CloseStatus)BinaryPrimitives.ReadUInt16BigEndian(payload) : CloseStatus.NoStatusReceived;
        ReceivedCloseStatus = status;
        ReceivedCloseReason = payload.Length > 2 ? Encoding.UTF8.GetString(payload.Slice(2)) : string.Empty;
        if (State == WebSocketSessionState.Open)
        {
            // Echo the status code (RFC 6455 §5.5.1); an empty Close is answered with an empty Close.
            QueueClose(status, payload.Length >= 2 ? payload.Slice(0, 2) : default);
        }

        State = WebSocketSessionState.Closed;
    }

    private void WritePendingPong()
    {
        int length = _pongLength;
        if (length >= 0)
        {
            _pongLength = -1;
            _encoder.Write(ControlOutput, WebSocketOpcode.Pong, _pongPayload.AsSpan(0, length));
        }
    }

    private void QueueClose(CloseStatus status, ReadOnlySpan<byte> payload)
    {
        WritePendingPong(); // nothing may follow our Close
        _encoder.Write(ControlOutput, WebSocketOpcode.Close, payload);
        SentCloseStatus = status;
        _closeSentAt = _time.GetTimestamp();
        State = WebSocketSessionState.CloseSent;
    }

    /// <summary>Whether the frame being gathered has been arriving for longer than the grace period at less than the
    /// minimum data rate.</summary>
    private bool FrameTooSlow(long now)
    {
        int rate = _options.MinFrameDataRate;
        if (rate == 0)
        {
            return false;
        }

        TimeSpan elapsed = _time.GetElapsedTime(_gatherStartedAt, now);
        return elapsed > WebSocketSessionOptions.MinFrameDataRateGracePeriod && (_gather?.Filled ?? 0) < rate * elapsed.TotalSeconds;
    }

    private SessionTimerResult EndBy(SessionTimerResult reason)
    {
        Timeout = reason;
        State = WebSocketSessionState.Closed;
        _gather?.Release();
        return reason;
    }

    private TimeSpan Remaining(long since, TimeSpan period, long now)
    {
        TimeSpan left = period - _time.GetElapsedTime(since, now);
        return left < TimeSpan.Zero ? TimeSpan.Zero : left;
    }

    private static TimeSpan Min(TimeSpan a, TimeSpan b) =>
        a == System.Threading.Timeout.InfiniteTimeSpan ? b : b == System.Threading.Timeout.InfiniteTimeSpan ? a : (a < b ? a : b);
}
