namespace WebSocketCodec;

/// <summary>Maps a <see cref="ProtocolViolation"/> to its close status and a human-readable reason: for code that reads
/// frames itself and must answer a violation with its Close, or to log why a websocket ended.</summary>
public static class ProtocolViolationExtensions
{
    /// <summary>The close status to send for <paramref name="violation"/>: 1009 for size limits, 1008 for the fragment limit and the minimum data rate, 1007 for invalid UTF-8 and compressed data that does not inflate,
    /// 1002 for every other rule, and 1000 for <see cref="ProtocolViolation.None"/>.</summary>
    public static CloseStatus ToCloseStatus(this ProtocolViolation violation) => violation switch
    {
        ProtocolViolation.None => CloseStatus.NormalClosure,
        ProtocolViolation.FrameTooBig or ProtocolViolation.MessageTooBig => CloseStatus.MessageTooBig,
        ProtocolViolation.InvalidTextUtf8 or ProtocolViolation.InvalidCloseReasonUtf8 or ProtocolViolation.InvalidCompressedData => CloseStatus.InvalidPayloadData,
        ProtocolViolation.TooManyFragments or ProtocolViolation.FrameTooSlow => CloseStatus.PolicyViolation,
        _ => CloseStatus.ProtocolError,
    };

    /// <summary>A short reason, fit for a Close frame (ASCII, under 123 bytes) and for logs.</summary>
    public static string Describe(this ProtocolViolation violation) => violation switch
    {
        ProtocolViolation.None => "no violation",
        ProtocolViolation.ReservedBitsSet => "RSV bit set without a negotiated extension",
        ProtocolViolation.ReservedOpcode => "reserved opcode",
        ProtocolViolation.ControlFrameTooLong => "control frame payload over 125 bytes",
        ProtocolViolation.ControlFrameFragmented => "fragmented control frame",
        ProtocolViolation.UnexpectedContinuation => "continuation frame without a message to continue",
        ProtocolViolation.ExpectedContinuation => "new data frame inside a fragmented message",
        ProtocolViolation.UnmaskedFrame => "unmasked frame from a client",
        ProtocolViolation.MaskedFrame => "masked frame from a server",
        ProtocolViolation.NonMinimalLength => "payload length not minimally encoded",
        ProtocolViolation.PayloadLengthOverflow => "64-bit payload length with the top bit set",
        ProtocolViolation.FrameTooBig => "frame payload over the limit",
        ProtocolViolation.MessageTooBig => "message over the limit",
        ProtocolViolation.ClosePayloadTooShort => "close payload of one byte",
        ProtocolViolation.InvalidCloseStatus => "invalid close status code",
        ProtocolViolation.InvalidCloseReasonUtf8 => "close reason is not valid UTF-8",
        ProtocolViolation.InvalidTextUtf8 => "text message is not valid UTF-8",
        ProtocolViolation.InvalidCompressedData => "compressed message does not inflate",
        ProtocolViolation.TooManyFragments => "message in more fragments than the limit",
        ProtocolViolation.FrameTooSlow => "frame arriving slower than the minimum data rate",
        _ => "unknown violation",
    };
}
