namespace WebSocketCodec;

/// <summary>Which end of the connection this codec speaks for: give it when you create a <see cref="WebSocketDriver"/>,
/// a <see cref="WebSocketSession"/>, a <see cref="FrameDecoder"/> or a <see cref="FrameEncoder"/>. It decides the
/// masking rules of RFC 6455 §5.1.</summary>
public enum WebSocketRole : byte
{
    /// <summary>The server: inbound frames must be masked, outbound frames are not.</summary>
    Server = 0,

    /// <summary>The client: inbound frames must not be masked, outbound frames are masked with a fresh key each.</summary>
    Client = 1,
}
