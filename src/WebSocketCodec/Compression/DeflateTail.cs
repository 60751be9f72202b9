namespace WebSocketCodec;

/// <summary>The four bytes a sync flush ends with (an empty stored block), which permessage-deflate strips from each
/// message and the receiver appends again before inflating (RFC 7692 §7.2.1, §7.2.2).</summary>
internal static class DeflateTail
{
    public static ReadOnlySpan<byte> Bytes => [0x00, 0x00, 0xFF, 0xFF];
}
