using System.Buffers;

namespace WebSocketCodec;

// After a violation (or a failed handler) the session fails the connection (RFC 6455 §7.1.7): one Close with the
// status, then no more processing of the peer's data, a responding Close included. What still arrives is counted and
// discarded, bounded in bytes (here) and time (the close timeout), while the driver ends its output (a half-close) and
// waits for the transport's end, so that closing never resets the connection under our unread Close.
public sealed partial class WebSocketSession
{
    private bool _draining;
    private long _drained;

    /// <summary>Bytes read and discarded after a violation (or a failed handler) so far.</summary>
    public long DrainedBytes => _drained;

    /// <summary>The violation funnel: one Close with the violation's status (never a second Close), then the session
    /// fails the connection: nothing after the violation is parsed. When the frame that broke the rule was the peer's
    /// own Close, the exchange is complete and the session ends at once.</summary>
    /// <param name="input">The input of this call.</param>
    /// <param name="offset">Where the unprocessed input starts: the refused header
    /// (<see cref="FrameDecoder.ViolationAtHeader"/>), else right after the bytes of the failing frame that were
    /// consumed.</param>
    /// <param name="header">The failing frame, unless its header was refused.</param>
    /// <param name="consumed">Bytes of <paramref name="input"/> used.</param>
    private OperationStatus Violated(Span<byte> input, int offset, scoped in FrameHeader header, out int consumed)
    {
        bool atHeader = _decoder.ViolationAtHeader;
        // The refused header starts in the carry (a header cut between inputs) or at the offset.
        byte refusedFirst = !atHeader ? (byte)0 : _carry.Length > 0 ? _carry.First : input[offset];
        _carry.Clear();
        if (_gather is { IsActive: true })
        {
            _gather?.Release();
        }

        if (State == WebSocketSessionState.Open)
        {
            Span<byte> payload = stackalloc byte[125];
            CloseStatus status = _decoder.Violation.ToCloseStatus();
            int length = ClosePayload.Write(payload, status, _decoder.Violation.Describe());
            QueueClose(status, payload.Slice(0, length));
        }

        bool ownClose = atHeader ? (refusedFirst & 0x0F) == (int)WebSocketOpcode.Close : header.Opcode == WebSocketOpcode.Close;
        if (ownClose)
        {
            // The peer's Close broke the rule: it sent its Close, so nothing more comes and the exchange is complete.
            State = WebSocketSessionState.Closed;
            consumed = offset;
            return OperationStatus.InvalidData;
        }

        _draining = true;
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
            _gather!.Append(rest);
        }

        return false;
    }

    private void StartGather(in FrameHeader header)
    {
        _frameHeader = header;
        _gatherStartedAt = _lastReceived; // the time of the input being received
        (_gather ??= new FrameGather(_pool)).Start(header.PayloadLength);
    }

    /// <summary>Discards input after the connection was failed; past <see cref="WebSocketSessionOptions.MaxDrainBytes"/>
    /// the session ends as if the close timeout had run out. Returns the bytes used (all of them).</summary>
    private int Drain(ReadOnlySpan<byte> input)
    {
        _drained += input.Length;
        if (State != WebSocketSessionState.Closed && _drained >= _options.MaxDrainBytes)
        {
            EndBy(SessionTimerResult.CloseTimeout); // the drain's byte bound counts as the close timeout running out
        }

        return input.Length;
    }
}
