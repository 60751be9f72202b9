namespace WebSocketCodec;

/// <summary>What a permessage-deflate negotiation settled (RFC 7692 §7.1): read it to see how a websocket compresses
/// (<see cref="WebSocketDriver.Deflate"/>), or hand it to <see cref="WebSocketDriver.EnablePerMessageDeflate"/> after a
/// negotiation of your own. For each direction it says whether its compressor keeps context between messages and the
/// largest window it may use.</summary>
/// <param name="ServerNoContextTakeover">The server starts every message with a fresh context.</param>
/// <param name="ClientNoContextTakeover">The client starts every message with a fresh context.</param>
/// <param name="ServerMaxWindowBits">The largest window of the server's compressor (8 to 15).</param>
/// <param name="ClientMaxWindowBits">The largest window of the client's compressor (8 to 15).</param>
public readonly record struct DeflateParameters(
    bool ServerNoContextTakeover, bool ClientNoContextTakeover, int ServerMaxWindowBits, int ClientMaxWindowBits)
{
    /// <summary>The smallest window RFC 7692 allows, in bits.</summary>
    public const int MinWindowBits = 8;

    /// <summary>The largest window, in bits: what .NET's deflate compressor always uses.</summary>
    public const int MaxWindowBits = 15;

    /// <summary>No parameter: both sides keep context, 15-bit windows.</summary>
    public static DeflateParameters Default { get; } = new(false, false, MaxWindowBits, MaxWindowBits);

    /// <summary>Whether <paramref name="role"/>'s own compressor keeps context between messages.</summary>
    public bool CompressorKeepsContext(WebSocketRole role) =>
        !(role == WebSocketRole.Server ? ServerNoContextTakeover : ClientNoContextTakeover) && CompressorWindowBits(role) == MaxWindowBits;

    /// <summary>Whether <paramref name="role"/>'s decompressor keeps context (the peer's compressor does).</summary>
    public bool DecompressorKeepsContext(WebSocketRole role) =>
        !(role == WebSocketRole.Server ? ClientNoContextTakeover : ServerNoContextTakeover);

    /// <summary>The window <paramref name="role"/>'s compressor is allowed.</summary>
    public int CompressorWindowBits(WebSocketRole role) => role == WebSocketRole.Server ? ServerMaxWindowBits : ClientMaxWindowBits;

    /// <summary>The longest message <paramref name="role"/> may compress. .NET's compressor always uses a 15-bit
    /// window; with a smaller one allowed, a message no longer than the window, compressed without context, cannot
    /// refer further back than the window: longer messages go uncompressed.</summary>
    public int MaxCompressedMessageLength(WebSocketRole role)
    {
        int bits = CompressorWindowBits(role);
        return bits == MaxWindowBits ? int.MaxValue : 1 << bits;
    }
}
