using System.Buffers;
using System.IO.Compression;

namespace WebSocketCodec;

/// <summary>
/// Inflates the other side's permessage-deflate messages fragment by fragment into an output, bounded: it stops as
/// soon as the message has inflated past the limit (so a compression bomb costs at most the limit plus one chunk). At
/// the end of a message the <c>00 00 FF FF</c> tail is appended before the last inflate (RFC 7692 §7.2.2); the context
/// is kept between messages or dropped after each.
/// </summary>
internal sealed class MessageInflater : IDisposable
{
    private const int Chunk = 16 * 1024;
    private readonly bool _keepContext;
    private readonly InflateSource _source;
    private DeflateStream? _inflate;

    public MessageInflater(bool keepContext, ArrayPool<byte>? pool = null)
    {
        _keepContext = keepContext;
        _source = new InflateSource(pool ?? ArrayPool<byte>.Shared);
    }

    /// <summary>Inflates one fragment's compressed bytes, and at <paramref name="endOfMessage"/> the end of the
    /// message.</summary>
    /// <param name="compressed">The fragment's payload as received.</param>
    /// <param name="endOfMessage">Whether this is the message's final fragment.</param>
    /// <param name="output">Where the inflated bytes go.</param>
    /// <param name="limit">The largest inflated message allowed.</param>
    /// <param name="inflated">The message's inflated length so far, updated.</param>
    /// <returns>Whether the message stayed within <paramref name="limit"/> (false: inflating stopped past it; the
    /// message, and the inflater's context, must be given up).</returns>
    /// <exception cref="InvalidDataException">The data is not valid DEFLATE.</exception>
    public bool Inflate(ReadOnlySpan<byte> compressed, bool endOfMessage, IBufferWriter<byte> output, long limit, ref long inflated)
    {
        _source.Load(compressed, endOfMessage ? DeflateTail.Bytes : default);
        DeflateStream inflate = _inflate ??= new DeflateStream(_source, CompressionMode.Decompress, leaveOpen: true);
        while (true)
        {
            Span<byte> span = output.GetSpan(Chunk);
            long left = limit - inflated; // >= 0: inflating stops once past the limit
            int room = left >= span.Length ? span.Length : (int)left + 1; // one byte past the limit tells it was passed (no overflow at long.MaxValue)
            int read = inflate.Read(span[..room]);
            if (read == 0)
            {
                break; // all of this fragment is inflated
            }

            output.Advance(read);
            inflated += read;
            if (inflated > limit)
            {
                Reset();
                return false;
            }
        }

        if (endOfMessage && !_keepContext)
        {
            Reset();
        }

        return true;
    }

    /// <summary>Frees the native state and the source's buffer.</summary>
    /// <summary>Returns the pooled copy of the compressed input between messages (the zlib context stays).</summary>
    public void ReleaseBuffers() => _source.Release();

    public void Dispose()
    {
        Reset();
        _source.Release();
    }

    /// <summary>Drops the context (after a message when it is not kept, after a failure).</summary>
    public void Reset()
    {
        _inflate?.Dispose();
        _inflate = null;
        _source.Clear();
    }
}
