using System.IO.Compression;

namespace WebSocketCodec.SpanNetty.Tests.Compression;

/// <summary>permessage-deflate's payload transform done with <see cref="DeflateStream"/> alone (not the library's code):
/// raw DEFLATE, a sync flush, the <c>00 00 FF FF</c> tail removed (RFC 7692 §7.2.1), and back.</summary>
internal static class RawDeflate
{
    private static readonly byte[] Tail = [0x00, 0x00, 0xFF, 0xFF];

    /// <summary>One message compressed afresh (no context).</summary>
    public static byte[] Compress(ReadOnlySpan<byte> message)
    {
        var output = new MemoryStream();
        using (var deflate = new DeflateStream(output, CompressionLevel.Optimal, leaveOpen: true))
        {
            deflate.Write(message);
            deflate.Flush();
            byte[] flushed = output.ToArray();
            Assert.True(flushed.AsSpan().EndsWith(Tail), "a sync flush ends with 00 00 FF FF");
            return flushed[..^4];
        }
    }

    /// <summary>One message inflated (no context), within 64 MiB.</summary>
    public static byte[] Inflate(ReadOnlySpan<byte> compressed)
    {
        using var input = new MemoryStream([.. compressed, .. Tail]);
        using var inflate = new DeflateStream(input, CompressionMode.Decompress);
        var output = new MemoryStream();
        inflate.CopyTo(output);
        return output.ToArray();
    }
}
