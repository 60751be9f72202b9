using System.Buffers;
using System.IO.Compression;

namespace WebSocketCodec;

/// <summary>
/// Compresses one side's messages for permessage-deflate: raw DEFLATE (System.IO.Compression's zlib, 15-bit window),
/// a sync flush per message with its <c>00 00 FF FF</c> tail removed, the context kept between messages or a fresh
/// compressor per message. An empty message (a sync flush with nothing new emits nothing) is the single byte
/// <c>0x00</c> (RFC 7692 §7.2.3.6).
/// </summary>
internal sealed class MessageDeflater : IDisposable
{
    private readonly CompressionLevel _level;
    private readonly bool _keepContext;
    private readonly DeflateSink _sink = new();
    private DeflateStream? _deflate;

    public MessageDeflater(CompressionLevel level, bool keepContext)
    {
        _level = level;
        _keepContext = keepContext;
    }

    /// <summary>Writes <paramref name="payload"/>'s compressed form (without the tail) to <paramref name="output"/>.</summary>
    /// <returns>The compressed length.</returns>
    public long Compress(ReadOnlySpan<byte> payload, IBufferWriter<byte> output)
    {
        _sink.Begin(output);
        DeflateStream deflate = _deflate ??= new DeflateStream(_sink, _level, leaveOpen: true);
        deflate.Write(payload);
        deflate.Flush(); // Z_SYNC_FLUSH: the message ends on a byte boundary, with 00 00 FF FF
        long written = _sink.End();
        if (written == 0)
        {
            output.Write<byte>([0x00]);
            written = 1;
        }

        if (!_keepContext)
        {
            Reset();
        }

        return written;
    }

    /// <summary>Frees the compressor's native state.</summary>
    public void Dispose() => Reset();

    private void Reset()
    {
        // With no target the final block that disposing writes is discarded.
        _deflate?.Dispose();
        _deflate = null;
    }
}
