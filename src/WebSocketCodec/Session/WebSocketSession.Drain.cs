using System.Buffers;
using System.Buffers.Binary;

namespace WebSocketCodec;

// After a violation (or a failed handler): one Close with the status, then a frame-aligned drain that parses headers
// and skips payloads, bounded in bytes (here) and time (the close timeout), until the peer's Close.
public sealed partial class WebSocketSession
{
    private bool _draining;
    private bool _violatorPending; // the next header drained is the frame that broke the rule
    private bool _drainingClose;
    private bool _untrustedSkip;   // skipping the payload a refused header announced: its length may be a lie
    private long _drainSkip;
    private long _drainPosition;
    private long _drained;
    private int _drainMaskKey;
    private ushort _drainCloseStatus;

    /// <summary>Bytes read and skipped after a violation so far.</summary>
    public long DrainedBytes => _drained;

    /// <summary>The violation funnel: one Close with the violation's status (never a second Close), then the drain. When
    /// the frame that broke the rule was the peer's own Close, the exchange is complete and the session ends at once.</summary>
    /// <param name="input">The input of this call.</param>
    /// <param name="offset">Where the drain starts: the refused header (<see cref="FrameDecoder.ViolationAtHeader"/>),
    /// else right after the bytes of the failing frame that were consumed.</param>
    /// <param name="header">The failing frame, unless its header was refused.</param>
    /// <param name="consumed">Bytes of <paramref name="input"/> used.</param>
    private OperationStatus Violated(Span<byte> input, int offset, scoped in FrameHeader header, out int consumed)
    {
        bool atHeader = _decoder.ViolationAtHeader;
        if (_gather.IsActive)
        {
            _gather.Release();
        }

        if (State == WebSocketSessionState.Open)
        {
            Span<byte> payload = stackalloc byte[125];
            CloseStatus status = _decoder.Violation.ToCloseStatus();
            int length = ClosePayload.Write(payload, status, _decoder.Violation.Describe());
            QueueClose(status, payload.Slice(0, length));
        }

        if (!atHeader && header.Opcode == WebSocketOpcode.Close)
        {
            // The peer's Close broke the rule: it sent its Close, so nothing more comes and the exchange is complete.
            State = WebSocketSessionState.Closed;
            consumed = offset;
            return OperationStatus.InvalidData;
        }

        StartDrain(violatorPending: atHeader, skip: atHeader ? 0 : _decoder.PayloadRemaining);
        consumed = offset + Drain(input.Slice(offset));
        return OperationStatus.InvalidData;
    }

    /// <summary>Takes the payload of a header read from the carry: in place when it is all in the input, else gathered.
    /// </summary>
    /// <returns>Whether the whole payload is there (in <paramref name="payload"/>); else see
    /// <paramref name="status"/>: NeedMoreData (gathering) or InvalidData.</returns>
    private bool TakePayload(Span<byte> input, scoped ref int offset, scoped in FrameHeader header, out Span<byte> payload, out OperationStatus status)
    {
        Span<byte> rest = input.Slice(offset);
        if (header.PayloadLength <= rest.Length)
        {
            payload = rest.Slice(0, (int)header.PayloadLength);
            status = _decoder.ProcessPayload(payload);
            offset += payload.Length;
            return status == OperationStatus.Done;
        }

        StartGather(header);
        payload = default;
        status = _decoder.ProcessPayload(rest);
        offset += rest.Length;
        if (status == OperationStatus.NeedMoreData)
        {
            _gather.Append(rest);
        }

        return false;
    }

    private void StartGather(in FrameHeader header)
    {
        _frameHeader = header;
        _gatherStartedAt = _lastReceived; // the time of the input being received
        _gather.Start(header.PayloadLength);
    }

    private void StartDrain(bool violatorPending, long skip)
    {
        _draining = true;
        _violatorPending = violatorPending;
        _drainSkip = skip;
        _drainingClose = false;
        _untrustedSkip = false;
        _drainPosition = 0;
    }

    /// <summary>Skips frames until the peer's Close; returns the bytes used (all of them unless the session ended).</summary>
    private int Drain(Span<byte> input)
    {
        int offset = 0;
        ProbeForClose(input);
        while (State != WebSocketSessionState.Closed && offset < input.Length)
        {
            if (_drainSkip > 0)
            {
                int take = (int)Math.Min(_drainSkip, input.Length - offset);
                if (_drainingClose)
                {
                    ReadCloseStatus(input.Slice(offset, take));
                }

                _drainSkip -= take;
                offset += take;
                _untrustedSkip &= _drainSkip > 0;
                if (_drainSkip == 0 && _drainingClose)
                {
                    PeerClosedWhileDraining();
                }

                continue;
            }

            ReadOnlySpan<byte> rest = input.Slice(offset);
            int carried = _carry.Length;
            ReadOnlySpan<byte> headerBytes = carried > 0 ? _carry.Fill(rest, out int taken) : rest;
            OperationStatus status = ReadLenientHeader(headerBytes, out byte first, out int maskKey, out long payloadLength, out int headerLength);
            if (status == OperationStatus.NeedMoreData)
            {
                if (carried > 0)
                {
                    _carry.Keep(rest.Length);
                }
                else
                {
                    _carry.Start(rest);
                }

                offset = input.Length;
                break;
            }

            _carry.Clear();
            offset += headerLength - carried;
            if (status == OperationStatus.InvalidData)
            {
                // A length no frame can have: nothing after it is aligned; only a Close at the start of a later read,
                // or the bounds, end the drain.
                _violatorPending = false;
                _drainSkip = long.MaxValue;
                _untrustedSkip = true;
                ProbeForClose(input.Slice(offset));
                continue;
            }

            bool isClose = (first & 0x0F) == (int)WebSocketOpcode.Close;
            if (_violatorPending)
            {
                _violatorPending = false;
                if (isClose)
                {
                    State = WebSocketSessionState.Closed; // the refused frame was the peer's Close
                    break;
                }

                _drainSkip = payloadLength;
                _untrustedSkip = true;
                ProbeForClose(input.Slice(offset));
                continue;
            }
            else if (isClose)
            {
                _drainingClose = true;
                _drainMaskKey = maskKey;
                _drainPosition = 0;
                _drainCloseStatus = 0;
                if (payloadLength == 0)
                {
                    PeerClosedWhileDraining();
                    break;
                }
            }

            _drainSkip = payloadLength;
        }

        _drained += offset;
        if (State != WebSocketSessionState.Closed && _drained >= _options.MaxDrainBytes)
        {
            EndBy(SessionTimerResult.CloseTimeout); // the drain's byte bound counts as the close timeout running out
        }

        return offset;
    }

    /// <summary>
    /// A refused header's length is not trusted (a peer that broke the framing may never send that payload): while its
    /// payload is skipped, an input that starts with a whole, well-formed Close frame (FIN, the mask bit of the peer's
    /// role, at most 125 bytes, a valid status) is taken for the peer's answer, and the skip ends there.
    /// </summary>
    private void ProbeForClose(ReadOnlySpan<byte> input)
    {
        if (!_untrustedSkip || _drainSkip == 0 || input.Length < 2 || input[0] != 0x88)
        {
            return;
        }

        bool masked = (input[1] & 0x80) != 0;
        int length = input[1] & 0x7F;
        int headerLength = masked ? 6 : 2;
        if (masked != (Role == WebSocketRole.Server) || length > 125 || length == 1 || input.Length < headerLength + length)
        {
            return;
        }

        if (length >= 2)
        {
            int key = masked ? BinaryPrimitives.ReadInt32LittleEndian(input.Slice(2)) : 0;
            ushort status = (ushort)(((input[headerLength] ^ (byte)key) << 8) | (byte)(input[headerLength + 1] ^ (byte)(key >> 8)));
            if (!CloseStatusRules.IsValidOnWire(status))
            {
                return;
            }
        }

        _drainSkip = 0;
        _untrustedSkip = false;
    }

    private void ReadCloseStatus(ReadOnlySpan<byte> chunk)
    {
        for (int i = 0; i < chunk.Length && _drainPosition < 2; i++, _drainPosition++)
        {
            int key = (byte)(_drainMaskKey >> (int)(8 * (_drainPosition & 3)));
            _drainCloseStatus = (ushort)((_drainCloseStatus << 8) | (byte)(chunk[i] ^ key));
        }
    }

    private void PeerClosedWhileDraining()
    {
        ReceivedCloseStatus = _drainPosition >= 2 ? (CloseStatus)_drainCloseStatus : CloseStatus.NoStatusReceived;
        State = WebSocketSessionState.Closed;
    }

    /// <summary>Reads a header without judging it: only its length, opcode and mask key matter to the drain.</summary>
    private static OperationStatus ReadLenientHeader(
        ReadOnlySpan<byte> source, out byte first, out int maskKey, out long payloadLength, out int headerLength)
    {
        first = 0;
        maskKey = 0;
        payloadLength = 0;
        headerLength = 0;
        if (source.Length < 2)
        {
            return OperationStatus.NeedMoreData;
        }

        first = source[0];
        bool masked = (source[1] & 0x80) != 0;
        int length7 = source[1] & 0x7F;
        int extended = length7 == 126 ? 2 : length7 == 127 ? 8 : 0;
        headerLength = 2 + extended + (masked ? 4 : 0);
        if (source.Length < headerLength)
        {
            return OperationStatus.NeedMoreData;
        }

        payloadLength = extended switch
        {
            0 => length7,
            2 => BinaryPrimitives.ReadUInt16BigEndian(source.Slice(2)),
            _ => (long)BinaryPrimitives.ReadUInt64BigEndian(source.Slice(2)),
        };
        if (payloadLength < 0)
        {
            return OperationStatus.InvalidData;
        }

        if (masked)
        {
            maskKey = BinaryPrimitives.ReadInt32LittleEndian(source.Slice(2 + extended));
        }

        return OperationStatus.Done;
    }
}
