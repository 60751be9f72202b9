using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.Unicode;

namespace WebSocketCodec;

/// <summary>The stateful frame reader of one connection: reach for it to read frames inside a transport of your own,
/// with every RFC 6455 rule enforced; a websocket of the <see cref="WebSocketDriver"/> runs one for you. No allocation
/// per frame. Not thread-safe: one reader loop drives it.</summary>
/// <remarks><para>It parses headers, enforces every RFC 6455 rule through one funnel (<see cref="Violation"/> then says
/// which and <see cref="ProtocolViolationExtensions.ToCloseStatus"/> what to send), unmasks payloads in place and
/// validates text and close payloads incrementally, so a payload may arrive in any number of chunks.</para>
/// <para>Drive it as: <see cref="ReadHeader(ReadOnlySpan{byte}, out FrameHeader, out int)"/> until it returns
/// <see cref="OperationStatus.Done"/>, consume <see cref="FrameHeader.HeaderLength"/> bytes, then
/// <see cref="ProcessPayload"/> on the payload bytes as they come (once with an empty span for an empty payload) until
/// it returns <see cref="OperationStatus.Done"/>. <see cref="ReadFrame"/> does both when a whole frame is buffered.
/// After <see cref="OperationStatus.InvalidData"/> the decoder stays failed.</para></remarks>
public sealed class FrameDecoder
{
    private readonly long _maxFrame; // a data frame's bound: the frame limit, or the message limit when smaller
    private readonly long _maxControlFrame; // a control frame is no part of a message: the frame limit alone
    private readonly long _maxMessage;
    private readonly int _forbiddenRsv;
    private readonly bool _validateUtf8;
    private readonly bool _deflate; // permessage-deflate: RSV1 on a message's first frame marks it compressed
    private readonly bool _requireMask;
    private readonly int _expectedMaskBit;

    private const int CompressedRsv = 4; // RSV1

    private const byte PayloadOpenFlag = 1;
    private const byte MessageOpenFlag = 2;
    private const byte FailedFlag = 4;

    private byte _flags; // PayloadOpenFlag | MessageOpenFlag | FailedFlag: zero on the fast path
    private readonly int _smallFrameLimit; // min(125, frame limit): a whole frame up to this takes the fast path
    private bool _messageIsText;
    private bool _messageCompressed;
    private long _messageLength;
    private int _messageFrames; // frames of the open (or last) data message so far
    private readonly int _maxFrames; // int.MaxValue when unlimited

    private FrameHeader _frame;
    private long _remaining;
    private int _maskOffset;
    private PayloadKind _kind;
    private ushort _closeStatus;
    private byte _closeStatusBytes;

    private Utf8Validator _textUtf8;
    private Utf8Validator _closeUtf8;

    /// <summary>Creates a decoder for the given end of the connection.</summary>
    public FrameDecoder(WebSocketRole role, FrameDecoderOptions? options = null)
    {
        options ??= FrameDecoderOptions.Default;
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxFramePayloadLength);
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxMessagePayloadLength);
        ArgumentOutOfRangeException.ThrowIfGreaterThan((uint)options.AllowedRsv, 7u);
        Role = role;
        _requireMask = role == WebSocketRole.Server;
        _expectedMaskBit = _requireMask ? 0x80 : 0;
        _maxFrame = Math.Min(options.MaxFramePayloadLength, options.MaxMessagePayloadLength);
        _maxControlFrame = options.MaxFramePayloadLength;
        _smallFrameLimit = (int)Math.Min(125, _maxFrame);
        _maxMessage = options.MaxMessagePayloadLength;
        ArgumentOutOfRangeException.ThrowIfNegative(options.MaxFragmentsPerMessage);
        _maxFrames = options.MaxFragmentsPerMessage == 0 ? int.MaxValue : options.MaxFragmentsPerMessage;
        _deflate = options.PerMessageDeflate;
        _forbiddenRsv = ~(options.AllowedRsv | (_deflate ? CompressedRsv : 0)) & 7;
        _validateUtf8 = options.ValidateUtf8;
    }

    private enum PayloadKind : byte
    {
        Other,
        Text,
        Close,
    }

    private bool PayloadOpen
    {
        get => (_flags & PayloadOpenFlag) != 0;
        set => _flags = (byte)(value ? _flags | PayloadOpenFlag : _flags & ~PayloadOpenFlag);
    }

    private bool MessageOpen
    {
        get => (_flags & MessageOpenFlag) != 0;
        set => _flags = (byte)(value ? _flags | MessageOpenFlag : _flags & ~MessageOpenFlag);
    }

    /// <summary>The end of the connection this decoder reads for.</summary>
    public WebSocketRole Role { get; }

    /// <summary>The rule the peer broke, or <see cref="ProtocolViolation.None"/>.</summary>
    public ProtocolViolation Violation { get; private set; }

    /// <summary>After a violation: whether a frame header itself was refused (nothing of that frame was consumed; the
    /// frame starts where the refused read started), rather than a payload (the frame is <see cref="CurrentHeader"/>
    /// with <see cref="PayloadRemaining"/> bytes after the chunk that broke the rule, or a whole frame
    /// <see cref="ReadFrame"/> returned).</summary>
    public bool ViolationAtHeader { get; private set; }

    /// <summary>Whether a fragmented message is open (its final fragment not yet read).</summary>
    public bool InFragmentedMessage => MessageOpen;

    /// <summary>Whether a header was read and its payload is not yet all processed.</summary>
    public bool InPayload => PayloadOpen;

    /// <summary>The header read by <see cref="ReadHeader(ReadOnlySpan{byte}, out FrameHeader, out int)"/> (or by the
    /// general path of <see cref="ReadFrame"/>) whose payload is being processed. Whole small frames read by
    /// <see cref="ReadFrame"/> do not update it.</summary>
    public FrameHeader CurrentHeader => _frame;

    /// <summary>Payload bytes of the current frame not yet processed.</summary>
    public long PayloadRemaining => _remaining;

    /// <summary>The opcode of the open fragmented message: <see cref="WebSocketOpcode.Text"/> or
    /// <see cref="WebSocketOpcode.Binary"/>.</summary>
    public WebSocketOpcode MessageOpcode => _messageIsText ? WebSocketOpcode.Text : WebSocketOpcode.Binary;

    /// <summary>Reads and validates the next frame header.</summary>
    /// <param name="source">Bytes from a frame boundary on.</param>
    /// <param name="header">The header, on <see cref="OperationStatus.Done"/>.</param>
    /// <param name="bytesNeeded">On <see cref="OperationStatus.NeedMoreData"/>, how many more bytes the header needs
    /// at least.</param>
    /// <returns>Done, NeedMoreData, or InvalidData (see <see cref="Violation"/>).</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public OperationStatus ReadHeader(ReadOnlySpan<byte> source, out FrameHeader header, out int bytesNeeded)
    {
        OperationStatus status = Peek(source, out header, out bytesNeeded);
        if (status == OperationStatus.Done)
        {
            Commit(header);
        }

        return status;
    }

    /// <inheritdoc cref="ReadHeader(ReadOnlySpan{byte}, out FrameHeader, out int)"/>
    public OperationStatus ReadHeader(in ReadOnlySequence<byte> source, out FrameHeader header, out int bytesNeeded)
    {
        Span<byte> scratch = stackalloc byte[FrameHeaderReader.MaxHeaderLength];
        return ReadHeader(FrameHeaderReader.HeaderBytes(source, scratch), out header, out bytesNeeded);
    }

    /// <summary>
    /// Unmasks the next chunk of the current payload in place and validates it (UTF-8 of text messages, the close
    /// status and reason of a Close frame).
    /// </summary>
    /// <param name="chunk">The next payload bytes; no more than <see cref="PayloadRemaining"/>.</param>
    /// <returns>Done when the frame's payload is complete, NeedMoreData when more is expected, InvalidData on a
    /// violation.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public OperationStatus ProcessPayload(Span<byte> chunk)
    {
        if (!PayloadOpen || (ulong)chunk.Length > (ulong)_remaining)
        {
            ThrowBadPayloadCall(chunk.Length);
        }

        if (_frame.IsMasked && !chunk.IsEmpty)
        {
            _maskOffset = WebSocketMask.Apply(chunk, _frame.MaskKey, _maskOffset);
        }

        _remaining -= chunk.Length;
        bool frameEnds = _remaining == 0;
        if (_kind != PayloadKind.Other)
        {
            ProtocolViolation violation = _kind == PayloadKind.Text
                ? CheckText(chunk, frameEnds && _frame.Fin)
                : CheckClose(chunk, frameEnds);
            if (violation != ProtocolViolation.None)
            {
                return Fail(violation);
            }
        }

        if (!frameEnds)
        {
            return OperationStatus.NeedMoreData;
        }

        PayloadOpen = false;
        return OperationStatus.Done;
    }

    /// <summary>
    /// Reads a whole frame when it is all in <paramref name="source"/>: the header is validated and the payload
    /// unmasked in place and validated.
    /// </summary>
    /// <param name="source">Bytes from a frame boundary on; the payload is unmasked in this memory.</param>
    /// <param name="header">The header, on Done.</param>
    /// <param name="payload">The unmasked payload, a slice of <paramref name="source"/>, on Done.</param>
    /// <param name="bytesNeeded">On NeedMoreData: how many more bytes the frame needs, as far as known. Nothing has
    /// been consumed or unmasked then.</param>
    /// <returns>Done (consume <see cref="FrameHeader.FrameLength"/> bytes), NeedMoreData or InvalidData.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public OperationStatus ReadFrame(Span<byte> source, out FrameHeader header, out Span<byte> payload, out long bytesNeeded)
    {
        // Fast path for the frames that dominate real traffic: a whole small (<= 125 bytes) final Text, Binary, Ping or
        // Pong frame, or a whole final Text or Binary frame with a 16-bit length, with no RSV bit and the mask bit the
        // role expects, outside a fragmented message. Everything else, and every violation, takes the general path
        // below, which applies every rule.
        if (source.Length >= 2 && _flags == 0)
        {
            ref byte p = ref MemoryMarshal.GetReference(source);
            uint first = p;
            // The mask bit must be the role's: XOR clears it, so a mismatch leaves a value over any limit.
            uint length = (uint)(Unsafe.Add(ref p, 1) ^ _expectedMaskBit);
            if (first - 0x81 <= 9 && ((FastFirstBytes >> (int)(first - 0x81)) & 1) != 0)
            {
                if (length <= (uint)_smallFrameLimit)
                {
                    int headerLength = _requireMask ? 6 : 2;
                    if (headerLength + (int)length <= source.Length)
                    {
                        return ReadSmallFrame(source, (int)first, (int)length, 2, headerLength, out header, out payload, out bytesNeeded);
                    }
                }
                else if (length == 126 && first <= 0x82 && source.Length >= 4)
                {
                    // A whole final Text or Binary frame with a 16-bit length: minimal (over 125) and within the limits.
                    uint extended = BinaryPrimitives.ReadUInt16BigEndian(source.Slice(2));
                    int headerLength = _requireMask ? 8 : 4;
                    if (extended > 125 && extended <= _maxFrame && headerLength + (int)extended <= source.Length)
                    {
                        return ReadSmallFrame(source, (int)first, (int)extended, 4, headerLength, out header, out payload, out bytesNeeded);
                    }
                }
            }
        }

        return ReadFrameGeneral(source, out header, out payload, out bytesNeeded);
    }

    /// <summary>
    /// Decodes every whole frame in <paramref name="buffer"/>, unmasking payloads in place, and hands each to
    /// <paramref name="handler"/>: the read loop of a transport in one call, with no frame object and no per-frame
    /// state kept for whole small frames.
    /// </summary>
    /// <param name="buffer">Bytes from a frame boundary on; payloads are unmasked in this memory.</param>
    /// <param name="handler">Receives the frames; a struct, so the calls are devirtualized.</param>
    /// <param name="consumed">Bytes of the frames handled: release them, keep the rest for the next call.</param>
    /// <param name="bytesNeeded">On NeedMoreData, how many more bytes the next frame needs at least.</param>
    /// <returns>NeedMoreData when every whole frame was handled (the rest, if any, is a partial frame); Done when the
    /// handler asked to stop; InvalidData on a violation (see <see cref="Violation"/>), after the frames before it.</returns>
    public OperationStatus DecodeFrames<THandler>(Span<byte> buffer, ref THandler handler, out int consumed, out long bytesNeeded)
        where THandler : struct, IFrameHandler
    {
        int offset = 0;
        OperationStatus status;
        while (true)
        {
            Span<byte> rest = buffer.Slice(offset);
            status = ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out bytesNeeded);
            if (status != OperationStatus.Done)
            {
                break;
            }

            offset += (int)header.FrameLength;
            if (!handler.OnFrame(header.Opcode, header.Fin, header.Rsv, payload))
            {
                consumed = offset;
                bytesNeeded = 0;
                return OperationStatus.Done;
            }
        }

        consumed = offset;
        return status;
    }

    /// <summary>First bytes 0x81, 0x82, 0x89 and 0x8A (FIN, no RSV; Text, Binary, Ping, Pong), as bits from 0x81.</summary>
    private const int FastFirstBytes = (1 << 0) | (1 << 1) | (1 << 8) | (1 << 9);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private OperationStatus ReadSmallFrame(
        Span<byte> source, int first, int length, int keyOffset, int headerLength, out FrameHeader header,
        out Span<byte> payload, out long bytesNeeded)
    {
        bytesNeeded = 0;
        payload = source.Slice(headerLength, length);
        int maskKey = 0;
        bool masked = headerLength != keyOffset;
        if (masked)
        {
            maskKey = BinaryPrimitives.ReadInt32LittleEndian(source.Slice(keyOffset));
            WebSocketMask.Apply(payload, maskKey);
        }

        header = new FrameHeader((byte)first, masked, maskKey, length, headerLength);
        if (first == 0x81 && _validateUtf8 && !Utf8.IsValid(payload))
        {
            return Fail(ProtocolViolation.InvalidTextUtf8);
        }

        return OperationStatus.Done;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private OperationStatus ReadFrameGeneral(Span<byte> source, out FrameHeader header, out Span<byte> payload, out long bytesNeeded)
    {
        payload = default;
        OperationStatus status = Peek(source, out header, out int headerNeeded);
        if (status != OperationStatus.Done)
        {
            bytesNeeded = headerNeeded;
            return status;
        }

        long frameLength = header.FrameLength;
        if (frameLength > source.Length)
        {
            bytesNeeded = frameLength - source.Length;
            return OperationStatus.NeedMoreData;
        }

        bytesNeeded = 0;
        Commit(header);
        payload = source.Slice(header.HeaderLength, (int)header.PayloadLength);
        return ProcessPayload(payload);
    }

    /// <summary>Reads and validates a header without moving to its payload.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private OperationStatus Peek(ReadOnlySpan<byte> source, out FrameHeader header, out int bytesNeeded)
    {
        if (PayloadOpen)
        {
            ThrowHelper.ThrowInvalidOperation("The current frame's payload has not been processed yet.");
        }

        if (Violation != ProtocolViolation.None)
        {
            header = default;
            bytesNeeded = 0;
            return OperationStatus.InvalidData;
        }

        long limit = !source.IsEmpty && (source[0] & 0x08) != 0 ? _maxControlFrame : _maxFrame;
        OperationStatus status = FrameHeaderReader.Read(source, limit, out header, out bytesNeeded, out var violation);
        if (status == OperationStatus.Done)
        {
            violation = Validate(header);
        }
        else if (source.Length >= 2 && (status == OperationStatus.NeedMoreData || IsLengthViolation(violation)))
        {
            // Fail early on what the first two bytes already show, before the rest of the header arrives. Those rules
            // also come before the length's, so a header is refused for the same rule (and the same close status)
            // however the transport cut it: with only its first two bytes in, or all of them.
            ProtocolViolation lead = ValidateLeadBytes(source[0], source[1]);
            if (lead != ProtocolViolation.None)
            {
                violation = lead;
            }
        }

        if (violation == ProtocolViolation.None)
        {
            return status;
        }

        ViolationAtHeader = true;
        return Fail(violation);
    }

    /// <summary>The funnel for header rules that depend on configuration and on the message state.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ProtocolViolation Validate(in FrameHeader header)
    {
        ProtocolViolation violation = CheckRsvAndMask(header.Rsv, header.IsMasked);
        if (violation != ProtocolViolation.None)
        {
            return violation;
        }

        WebSocketOpcode opcode = header.Opcode;
        if (_deflate && (header.Rsv & CompressedRsv) != 0 && !IsMessageStart(opcode))
        {
            return ProtocolViolation.ReservedBitsSet; // RFC 7692 §6.1: RSV1 on a message's first frame only
        }

        if (header.IsControl)
        {
            return opcode == WebSocketOpcode.Close && header.PayloadLength == 1
                ? ProtocolViolation.ClosePayloadTooShort
                : ProtocolViolation.None;
        }

        if (opcode == WebSocketOpcode.Continuation)
        {
            if (!MessageOpen)
            {
                return ProtocolViolation.UnexpectedContinuation;
            }

            if (_messageFrames >= _maxFrames)
            {
                return ProtocolViolation.TooManyFragments;
            }

            return header.PayloadLength > _maxMessage - _messageLength
                ? ProtocolViolation.MessageTooBig
                : ProtocolViolation.None;
        }

        if (MessageOpen)
        {
            return ProtocolViolation.ExpectedContinuation;
        }

        return header.PayloadLength > _maxMessage ? ProtocolViolation.MessageTooBig : ProtocolViolation.None;
    }

    private static bool IsLengthViolation(ProtocolViolation violation) =>
        violation is ProtocolViolation.NonMinimalLength or ProtocolViolation.PayloadLengthOverflow or ProtocolViolation.FrameTooBig;

    private ProtocolViolation ValidateLeadBytes(byte first, byte second)
    {
        ProtocolViolation violation = CheckRsvAndMask((first >> 4) & 7, (second & 0x80) != 0);
        if (violation != ProtocolViolation.None)
        {
            return violation;
        }

        var opcode = (WebSocketOpcode)(first & 0x0F);
        if (_deflate && ((first >> 4) & CompressedRsv) != 0 && !IsMessageStart(opcode))
        {
            return ProtocolViolation.ReservedBitsSet;
        }

        if (opcode == WebSocketOpcode.Continuation)
        {
            return MessageOpen ? ProtocolViolation.None : ProtocolViolation.UnexpectedContinuation;
        }

        return MessageOpen && opcode is WebSocketOpcode.Text or WebSocketOpcode.Binary
            ? ProtocolViolation.ExpectedContinuation
            : ProtocolViolation.None;
    }

    private static bool IsMessageStart(WebSocketOpcode opcode) => opcode is WebSocketOpcode.Text or WebSocketOpcode.Binary;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private ProtocolViolation CheckRsvAndMask(int rsv, bool masked)
    {
        if ((rsv & _forbiddenRsv) != 0)
        {
            return ProtocolViolation.ReservedBitsSet;
        }

        if (masked != _requireMask)
        {
            return _requireMask ? ProtocolViolation.UnmaskedFrame : ProtocolViolation.MaskedFrame;
        }

        return ProtocolViolation.None;
    }

    /// <summary>Moves to the payload of an accepted header and updates the message state.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Commit(in FrameHeader header)
    {
        _frame = header;
        _remaining = header.PayloadLength;
        _maskOffset = 0;
        PayloadOpen = true;
        WebSocketOpcode opcode = header.Opcode;
        if (header.IsControl)
        {
            _kind = opcode == WebSocketOpcode.Close ? PayloadKind.Close : PayloadKind.Other;
            if (_kind == PayloadKind.Close)
            {
                _closeStatusBytes = 0;
                _closeStatus = 0;
                _closeUtf8.Reset();
            }

            return;
        }

        if (opcode != WebSocketOpcode.Continuation)
        {
            _messageIsText = opcode == WebSocketOpcode.Text;
            _messageCompressed = _deflate && (header.Rsv & CompressedRsv) != 0;
            _messageLength = 0;
            _messageFrames = 0;
            if (_messageIsText)
            {
                _textUtf8.Reset();
            }
        }

        _messageLength += header.PayloadLength;
        _messageFrames++;
        MessageOpen = !header.Fin;
        _kind = _messageIsText && _validateUtf8 && !_messageCompressed ? PayloadKind.Text : PayloadKind.Other;
    }

    private ProtocolViolation CheckText(ReadOnlySpan<byte> chunk, bool messageEnds) =>
        _textUtf8.Append(chunk, messageEnds) ? ProtocolViolation.None : ProtocolViolation.InvalidTextUtf8;

    private ProtocolViolation CheckClose(ReadOnlySpan<byte> chunk, bool frameEnds)
    {
        while (_closeStatusBytes < 2 && !chunk.IsEmpty)
        {
            _closeStatus = (ushort)((_closeStatus << 8) | chunk[0]);
            _closeStatusBytes++;
            chunk = chunk.Slice(1);
            if (_closeStatusBytes == 2 && !CloseStatusRules.IsValidOnWire(_closeStatus))
            {
                return ProtocolViolation.InvalidCloseStatus;
            }
        }

        if (_closeStatusBytes == 2 && _validateUtf8 && !_closeUtf8.Append(chunk, frameEnds))
        {
            return ProtocolViolation.InvalidCloseReasonUtf8;
        }

        return ProtocolViolation.None;
    }

    /// <summary>Fails the frame whose payload is in progress for a rule of the layer above (the session's minimum
    /// data rate); <see cref="PayloadRemaining"/> still tells how much of it there is left to skip.</summary>
    internal void FailInPayload(ProtocolViolation violation)
    {
        Fail(violation);
        ViolationAtHeader = false;
    }

    /// <summary>The one place every violation ends: the decoder is failed for good.</summary>
    private OperationStatus Fail(ProtocolViolation violation)
    {
        Violation = violation;
        _flags = FailedFlag;
        return OperationStatus.InvalidData;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowBadPayloadCall(int length) => ThrowHelper.ThrowInvalidOperation(
        PayloadOpen
            ? $"The chunk of {length} bytes is longer than the {_remaining} payload bytes left."
            : "No frame header has been read, or the decoder has failed.");
}
