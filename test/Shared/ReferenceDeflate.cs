using System.IO.Compression;

namespace WebSocketCodec;

/// <summary>permessage-deflate done with <see cref="DeflateStream"/> alone, independently of the library, for tests
/// that write or read compressed frames by hand (RFC 7692 §7.2).</summary>
public static class ReferenceDeflate
{
    private static ReadOnlySpan<byte> Tail => [0x00, 0x00, 0xFF, 0xFF];

    /// <summary>One message compressed without context: sync-flushed, the 00 00 FF FF tail stripped. Valid for an
    /// inflater that keeps context too (it refers to nothing before it), so it may be sent again and again.</summary>
    public static byte[] Compress(ReadOnlySpan<byte> message, CompressionLevel level = CompressionLevel.Optimal)
    {
        var sink = new MemoryStream();
        using (var deflate = new DeflateStream(sink, level, leaveOpen: true))
        {
            deflate.Write(message);
            deflate.Flush();
        }

        byte[] all = sink.ToArray(); // the final empty block the disposal added comes after the flush's tail
        return all[..all.AsSpan().LastIndexOf(Tail)];
    }

    /// <summary>Inflates one whole message's payload, the tail put back.</summary>
    public static byte[] Inflate(ReadOnlySpan<byte> compressed)
    {
        using var source = new MemoryStream([.. compressed, .. Tail]);
        using var inflate = new DeflateStream(source, CompressionMode.Decompress);
        var inflated = new MemoryStream();
        inflate.CopyTo(inflated);
        return inflated.ToArray();
    }
}
