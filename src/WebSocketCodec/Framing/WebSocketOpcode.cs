namespace WebSocketCodec;

/// <summary>The frame opcodes of RFC 6455 §5.2: what you send a message as (<see cref="Text"/> or <see cref="Binary"/>)
/// and what a frame listener is told a frame is. Values 3-7 and 11-15 are reserved and never valid on the
/// wire.</summary>
public enum WebSocketOpcode : byte
{
    /// <summary>A continuation fragment of a fragmented text or binary message.</summary>
    Continuation = 0x0,

    /// <summary>The first (or only) frame of a UTF-8 text message.</summary>
    Text = 0x1,

    /// <summary>The first (or only) frame of a binary message.</summary>
    Binary = 0x2,

    /// <summary>A Close control frame.</summary>
    Close = 0x8,

    /// <summary>A Ping control frame.</summary>
    Ping = 0x9,

    /// <summary>A Pong control frame.</summary>
    Pong = 0xA,
}
