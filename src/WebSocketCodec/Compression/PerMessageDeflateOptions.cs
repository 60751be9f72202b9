using System.IO.Compression;

namespace WebSocketCodec;

/// <summary>The permessage-deflate extension (RFC 7692) as one side wants it, server or client: set it as
/// <see cref="WebSocketAcceptOptions.Deflate"/> or <see cref="WebSocketClientOptions.Deflate"/> to have messages
/// compressed (both are null by default: no compression). "Own" is this side's compressor, "peer" the other side's. A
/// server accepts an offer that fits; a client offers it and checks the answer.</summary>
/// <remarks>The defaults ask for no context takeover either way: a websocket then holds no zlib state between messages
/// (about 23-42 KiB of RSS per websocket on a server instead of about 275-290 KiB, measured at 1,000 and 10,000
/// websockets, and less CPU per message at that scale), for about 1.8 times the bytes of a kept context on small
/// repetitive messages. Turn both on for a few busy websockets where bytes matter more than memory.</remarks>
public sealed record PerMessageDeflateOptions
{
    /// <summary>Whether this side keeps its compression context from message to message (better ratios; the context
    /// costs memory per websocket: about 256 KiB of zlib state for a 15-bit window). Off (the default): this side asks
    /// for <c>*_no_context_takeover</c> on its own messages and starts each one afresh.</summary>
    public bool OwnContextTakeover { get; init; }

    /// <summary>Whether the peer may keep its context. Off (the default): this side asks for the peer's
    /// <c>*_no_context_takeover</c>, so inflating the peer's messages needs no state between messages (and the peer
    /// saves its own).</summary>
    public bool PeerContextTakeover { get; init; }

    /// <summary>The largest LZ77 window the peer may use, 8 to 15 bits (null: the peer's choice, 15). Inflating reads
    /// any window; a smaller one only saves the peer memory.</summary>
    public int? PeerMaxWindowBits { get; init; }

    /// <summary>The compression level of this side's messages.</summary>
    public CompressionLevel Level { get; init; } = CompressionLevel.Fastest;

    /// <summary>Messages shorter than this many bytes are sent uncompressed (RSV1 clear, which the extension allows per
    /// message): below a few dozen bytes deflate rarely wins.</summary>
    public int Threshold { get; init; } = 32;

    /// <summary>Checks the values; throws <see cref="ArgumentOutOfRangeException"/> on one out of range.</summary>
    public void Validate()
    {
        if (PeerMaxWindowBits is { } bits)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(bits, DeflateParameters.MinWindowBits, nameof(PeerMaxWindowBits));
            ArgumentOutOfRangeException.ThrowIfGreaterThan(bits, DeflateParameters.MaxWindowBits, nameof(PeerMaxWindowBits));
        }

        ArgumentOutOfRangeException.ThrowIfNegative(Threshold, nameof(Threshold));
    }
}
