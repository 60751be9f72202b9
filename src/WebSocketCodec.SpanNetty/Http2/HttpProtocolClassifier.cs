using DotNetty.Buffers;

namespace WebSocketCodec.SpanNetty;

/// <summary>What a cleartext connection's first bytes say it speaks.</summary>
internal enum HttpProtocolGuess
{
    /// <summary>Not enough bytes yet: a strict prefix of the HTTP/2 preface, or of an HTTP/1.1 method.</summary>
    NeedMore,

    /// <summary>The whole 24-byte HTTP/2 connection preface (RFC 9113 §3.4): HTTP/2 prior knowledge.</summary>
    Http2,

    /// <summary>A method token followed by a space: an HTTP/1.1 request line (RFC 9112 §3).</summary>
    Http1,

    /// <summary>Neither: a byte that no request line starts with, or a method longer than any real one.</summary>
    Junk,
}

/// <summary>Tells the HTTP/2 preface from an HTTP/1.1 request line by the first bytes, reading them in place.</summary>
internal static class HttpProtocolClassifier
{
    /// <summary>The longest method token taken for HTTP/1.1 (the longest registered method, UPDATEREDIRECTREF, is 17).</summary>
    internal const int MaxMethodLength = 20;

    /// <summary>"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".</summary>
    internal static ReadOnlySpan<byte> Preface => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8;

    /// <summary>Classifies the readable bytes of <paramref name="buffer"/> (its indexes untouched).</summary>
    public static HttpProtocolGuess Classify(IByteBuffer buffer)
    {
        int start = buffer.ReaderIndex;
        int length = buffer.ReadableBytes;
        ReadOnlySpan<byte> preface = Preface;
        int matched = 0;
        while (matched < length && matched < preface.Length && buffer.GetByte(start + matched) == preface[matched])
        {
            matched++;
        }

        if (matched == preface.Length)
        {
            return HttpProtocolGuess.Http2;
        }

        if (matched == length)
        {
            return HttpProtocolGuess.NeedMore; // a strict prefix of the preface (or nothing)
        }

        // Not the preface: an HTTP/1.1 request line starts with a method token, then one space.
        for (int i = 0; i < length && i <= MaxMethodLength; i++)
        {
            byte b = buffer.GetByte(start + i);
            if (b == (byte)' ')
            {
                return i > 0 ? HttpProtocolGuess.Http1 : HttpProtocolGuess.Junk;
            }

            if (!IsTokenChar(b))
            {
                return HttpProtocolGuess.Junk;
            }
        }

        return length > MaxMethodLength ? HttpProtocolGuess.Junk : HttpProtocolGuess.NeedMore;
    }

    /// <summary>RFC 9110 §5.6.2 tchar: letters, digits and <c>!#$%&amp;'*+-.^_`|~</c>.</summary>
    private static bool IsTokenChar(byte b) =>
        b is (>= (byte)'a' and <= (byte)'z') or (>= (byte)'A' and <= (byte)'Z') or (>= (byte)'0' and <= (byte)'9')
        || b is (byte)'!' or (byte)'#' or (byte)'$' or (byte)'%' or (byte)'&' or (byte)'\'' or (byte)'*' or (byte)'+'
            or (byte)'-' or (byte)'.' or (byte)'^' or (byte)'_' or (byte)'`' or (byte)'|' or (byte)'~';
}
