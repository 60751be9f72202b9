namespace WebSocketCodec;

/// <summary>Every way a peer can break RFC 6455 at the frame level: read it from
/// <see cref="WebSocketCloseInfo.Violation"/> (or <see cref="FrameDecoder.Violation"/>) to learn which rule ended a
/// websocket. Each maps to exactly one close status through <see cref="ProtocolViolationExtensions.ToCloseStatus"/>:
/// the single funnel every rule ends in.</summary>
public enum ProtocolViolation : byte
{
    /// <summary>No violation.</summary>
    None = 0,

    /// <summary>An RSV bit is set that no negotiated extension defines (1002).</summary>
    ReservedBitsSet,

    /// <summary>A reserved opcode: 3-7 or 11-15 (1002).</summary>
    ReservedOpcode,

    /// <summary>A control frame with a payload over 125 bytes (1002).</summary>
    ControlFrameTooLong,

    /// <summary>A control frame without FIN (1002).</summary>
    ControlFrameFragmented,

    /// <summary>A continuation frame with no fragmented message to continue (1002).</summary>
    UnexpectedContinuation,

    /// <summary>A new text or binary frame while a fragmented message is still open (1002).</summary>
    ExpectedContinuation,

    /// <summary>A server received an unmasked frame (1002).</summary>
    UnmaskedFrame,

    /// <summary>A client received a masked frame (1002).</summary>
    MaskedFrame,

    /// <summary>A payload length not in its minimal encoding, e.g. 100 written in the 16-bit form (1002).</summary>
    NonMinimalLength,

    /// <summary>A 64-bit payload length with its most significant bit set (1002).</summary>
    PayloadLengthOverflow,

    /// <summary>A frame payload over the configured frame limit (1009).</summary>
    FrameTooBig,

    /// <summary>A message over the configured message limit (1009).</summary>
    MessageTooBig,

    /// <summary>A Close frame whose payload is a single byte (1002).</summary>
    ClosePayloadTooShort,

    /// <summary>A Close frame with a status code that may not be sent on the wire (1002).</summary>
    InvalidCloseStatus,

    /// <summary>A Close frame whose reason is not valid UTF-8 (1007).</summary>
    InvalidCloseReasonUtf8,

    /// <summary>A text message that is not valid UTF-8 (1007).</summary>
    InvalidTextUtf8,

    /// <summary>A data message in more frames than the configured fragment limit (1008).</summary>
    TooManyFragments,

    /// <summary>A frame whose payload arrives slower than the configured minimum data rate (1008).</summary>
    FrameTooSlow,

    /// <summary>A permessage-deflate message whose data does not inflate (RFC 7692 §6.2) (1007).</summary>
    InvalidCompressedData,
}
