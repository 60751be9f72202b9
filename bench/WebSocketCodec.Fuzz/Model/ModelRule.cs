namespace WebSocketCodec.Fuzz.Model;

/// <summary>The rules of RFC 6455 §5 and RFC 7692 (plus the receiver's own limits) a frame can break; each names the
/// close status it justifies (<see cref="ModelRules.Status"/>).</summary>
public enum ModelRule
{
    /// <summary>§5.2: opcodes 3-7 and 11-15 are reserved; "MUST _Fail_" on an unknown one. 1002.</summary>
    ReservedOpcode,

    /// <summary>§5.2: an RSV bit no negotiated extension defines. 1002.</summary>
    ReservedBit,

    /// <summary>RFC 7692 §6.1: RSV1 (Per-Message Compressed) on a control frame or a continuation. 1002.</summary>
    CompressedBitOutsideMessageStart,

    /// <summary>§5.5: "All control frames MUST have a payload length of 125 bytes or less". 1002.</summary>
    ControlFrameTooLong,

    /// <summary>§5.5: "Control frames ... MUST NOT be fragmented" (FIN clear). 1002.</summary>
    ControlFrameNotFinal,

    /// <summary>§5.4: a continuation with no fragmented message open. 1002.</summary>
    ContinuationWithoutMessage,

    /// <summary>§5.4: a Text or Binary frame while a fragmented message is open. 1002.</summary>
    NewMessageInsideMessage,

    /// <summary>§5.1: a server got an unmasked frame, or a client a masked one. 1002.</summary>
    WrongMaskBit,

    /// <summary>§5.2: "the minimal number of bytes MUST be used to encode the length". 1002.</summary>
    NonMinimalLength,

    /// <summary>§5.2: "the most significant bit MUST be 0" in the 64-bit length. 1002.</summary>
    LengthTopBitSet,

    /// <summary>A frame payload over the receiver's frame limit. 1009.</summary>
    FrameOverLimit,

    /// <summary>A data message over the receiver's message limit. 1009.</summary>
    MessageOverLimit,

    /// <summary>A data message in more frames than the receiver allows. 1008.</summary>
    TooManyFragments,

    /// <summary>§5.5.1: a Close body, when there is one, starts with a 2-byte status: 1 byte cannot be. 1002.</summary>
    CloseBodyOfOneByte,

    /// <summary>§7.4: a status that may not appear in a Close frame. 1002.</summary>
    CloseStatusNotAllowed,

    /// <summary>§5.5.1, §8.1: a Close reason that is not UTF-8. 1007.</summary>
    CloseReasonNotUtf8,

    /// <summary>§5.6, §8.1: a text message that is not UTF-8. 1007.</summary>
    TextNotUtf8,
}

/// <summary>What each <see cref="ModelRule"/> justifies.</summary>
public static class ModelRules
{
    /// <summary>1002: protocol error.</summary>
    public const int ProtocolError = 1002;

    /// <summary>1007: invalid frame payload data.</summary>
    public const int InvalidPayloadData = 1007;

    /// <summary>1008: policy violation.</summary>
    public const int PolicyViolation = 1008;

    /// <summary>1009: message too big.</summary>
    public const int MessageTooBig = 1009;

    /// <summary>The close status <paramref name="rule"/> justifies (RFC 6455 §7.4.1).</summary>
    public static int Status(ModelRule rule) => rule switch
    {
        ModelRule.FrameOverLimit or ModelRule.MessageOverLimit => MessageTooBig,
        ModelRule.TooManyFragments => PolicyViolation,
        ModelRule.CloseReasonNotUtf8 or ModelRule.TextNotUtf8 => InvalidPayloadData,
        _ => ProtocolError,
    };

    /// <summary>
    /// Whether a Close frame may carry <paramref name="code"/>, from RFC 6455 §7.4 and the IANA "WebSocket Close Code
    /// Number" registry: 1000-1003 and 1007-1011 (§7.4.1), 1012-1014 (registered later: service restart, try again
    /// later, bad gateway), 3000-4999 (§7.4.2: libraries and applications). Not allowed: 0-999 ("not used"), 1004
    /// (reserved), 1005, 1006 and 1015 ("MUST NOT be set as a status code in a Close control frame"), 1016-2999 (kept
    /// for future revisions of the protocol: no peer can mean one yet), 5000 and up. A code the registry lists with a
    /// direction (1010 is a client's) is accepted from either end: the RFC tells the sender, not the receiver.
    /// </summary>
    public static bool CloseCodeAllowed(int code) =>
        (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);
}
