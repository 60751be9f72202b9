using System.Buffers;
using System.Text;

namespace WebSocketCodec;

/// <summary>A strict, bounded HTTP/1.1 message head parser over bytes (RFC 9112 §2-§5): use it to read an upgrade
/// request, or the answer to one, off a raw transport in a server or client of your own.</summary>
/// <remarks>It takes CRLF line endings only, token field names with no whitespace before the colon, no obs-fold, no
/// control characters in values. It allocates only the strings of the head it returns, once per connection.</remarks>
public static class HttpHeadParser
{
    /// <summary>The default bound on a head, in bytes, CRLFCRLF included.</summary>
    public const int DefaultMaxHeadLength = 8 * 1024;

    /// <summary>The default bound on the number of header fields.</summary>
    public const int DefaultMaxFields = 64;

    /// <summary>As the span overload, over bytes in segments (a pipe's buffer): a head cut across segments is copied,
    /// up to <paramref name="maxHeadLength"/> bytes and one more, into one pooled buffer to be parsed.</summary>
    /// <param name="source">Bytes received so far; bytes after the head (e.g. the first frames) are left alone.</param>
    /// <param name="head">The head, on <see cref="OperationStatus.Done"/>.</param>
    /// <param name="headLength">On Done, the head's length including the final CRLFCRLF.</param>
    /// <param name="error">On <see cref="OperationStatus.InvalidData"/>, why.</param>
    /// <param name="maxHeadLength">The bound on the head's length.</param>
    /// <param name="maxFields">The bound on the number of fields.</param>
    /// <returns>Done, NeedMoreData (no complete head yet and still within bounds) or InvalidData.</returns>
    public static OperationStatus TryParse(
        in ReadOnlySequence<byte> source, out HttpHead? head, out int headLength, out HttpHeadError error,
        int maxHeadLength = DefaultMaxHeadLength, int maxFields = DefaultMaxFields)
    {
        if (source.IsSingleSegment)
        {
            return TryParse(source.FirstSpan, out head, out headLength, out error, maxHeadLength, maxFields);
        }

        int length = (int)Math.Min(source.Length, (long)maxHeadLength + 1);
        byte[] copy = ArrayPool<byte>.Shared.Rent(length);
        try
        {
            source.Slice(0, length).CopyTo(copy);
            return TryParse(copy.AsSpan(0, length), out head, out headLength, out error, maxHeadLength, maxFields);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(copy);
        }
    }

    /// <summary>
    /// Parses the head at the start of <paramref name="source"/> when it is complete.
    /// </summary>
    /// <param name="source">Bytes received so far; bytes after the head (e.g. the first frames) are left alone.</param>
    /// <param name="head">The head, on <see cref="OperationStatus.Done"/>.</param>
    /// <param name="headLength">On Done, the head's length including the final CRLFCRLF.</param>
    /// <param name="error">On <see cref="OperationStatus.InvalidData"/>, why.</param>
    /// <param name="maxHeadLength">The bound on the head's length.</param>
    /// <param name="maxFields">The bound on the number of fields.</param>
    /// <returns>Done, NeedMoreData (no complete head yet and still within bounds) or InvalidData.</returns>
    public static OperationStatus TryParse(
        ReadOnlySpan<byte> source, out HttpHead? head, out int headLength, out HttpHeadError error,
        int maxHeadLength = DefaultMaxHeadLength, int maxFields = DefaultMaxFields)
    {
        head = null;
        headLength = 0;
        error = HttpHeadError.None;
        ReadOnlySpan<byte> window = source.Length > maxHeadLength ? source.Slice(0, maxHeadLength) : source;
        int end = window.IndexOf("\r\n\r\n"u8);
        if (end < 0)
        {
            // A bare LF ends no line, so a head with bare LFs would wait until the bound: fail it early. Checked before
            // the bound, so the answer (400, not 431) does not depend on how many bytes had arrived when it was asked.
            int lf = window.IndexOf((byte)'\n');
            if (lf == 0 || (lf > 0 && window[lf - 1] != '\r'))
            {
                error = HttpHeadError.BadLineEnding;
                return OperationStatus.InvalidData;
            }

            if (source.Length >= maxHeadLength)
            {
                error = HttpHeadError.HeadTooLarge;
                return OperationStatus.InvalidData;
            }

            return OperationStatus.NeedMoreData;
        }

        headLength = end + 4;
        error = Parse(source.Slice(0, end + 2), maxFields, out head);
        return error == HttpHeadError.None ? OperationStatus.Done : OperationStatus.InvalidData;
    }

    private static HttpHeadError Parse(ReadOnlySpan<byte> lines, int maxFields, out HttpHead? head)
    {
        head = null;
        int lineEnd = NextLine(lines, out HttpHeadError error);
        if (lineEnd < 0)
        {
            return error;
        }

        ReadOnlySpan<byte> startLine = lines.Slice(0, lineEnd);
        int sp1 = startLine.IndexOf((byte)' ');
        int sp2 = sp1 < 0 ? -1 : startLine.Slice(sp1 + 1).IndexOf((byte)' ');
        if (sp1 <= 0 || sp2 <= 0 || startLine.ContainsAnyInRange((byte)0, (byte)0x1F) || startLine.Contains((byte)0x7F))
        {
            return HttpHeadError.BadStartLine;
        }

        sp2 += sp1 + 1;
        string part1 = Encoding.Latin1.GetString(startLine.Slice(0, sp1));
        string part2 = Encoding.Latin1.GetString(startLine.Slice(sp1 + 1, sp2 - sp1 - 1));
        string part3 = Encoding.Latin1.GetString(startLine.Slice(sp2 + 1));
        var fields = new List<KeyValuePair<string, string>>();
        lines = lines.Slice(lineEnd + 2);
        while (!lines.IsEmpty)
        {
            lineEnd = NextLine(lines, out error);
            if (lineEnd < 0)
            {
                return error;
            }

            if (fields.Count == maxFields)
            {
                return HttpHeadError.TooManyFields;
            }

            error = ParseField(lines.Slice(0, lineEnd), fields);
            if (error != HttpHeadError.None)
            {
                return error;
            }

            lines = lines.Slice(lineEnd + 2);
        }

        head = new HttpHead(part1, part2, part3, fields);
        return HttpHeadError.None;
    }

    /// <summary>The index of the CR of the next CRLF, or -1 with the error for a bare CR or LF before it.</summary>
    private static int NextLine(ReadOnlySpan<byte> lines, out HttpHeadError error)
    {
        int end = lines.IndexOfAny((byte)'\r', (byte)'\n');
        if (end < 0 || lines[end] != '\r' || end + 1 >= lines.Length || lines[end + 1] != '\n')
        {
            error = HttpHeadError.BadLineEnding;
            return -1;
        }

        error = HttpHeadError.None;
        return end;
    }

    private static HttpHeadError ParseField(ReadOnlySpan<byte> line, List<KeyValuePair<string, string>> fields)
    {
        int colon = line.IndexOf((byte)':');
        if (colon <= 0 || !HttpToken.IsToken(line.Slice(0, colon)))
        {
            // Covers obs-fold (a line starting with whitespace) and whitespace before the colon.
            return HttpHeadError.BadHeaderLine;
        }

        ReadOnlySpan<byte> value = line.Slice(colon + 1).Trim(" \t"u8);
        foreach (byte b in value)
        {
            if ((b < 0x20 && b != '\t') || b == 0x7F)
            {
                return HttpHeadError.BadHeaderLine;
            }
        }

        fields.Add(new(Encoding.Latin1.GetString(line.Slice(0, colon)), Encoding.Latin1.GetString(value)));
        return HttpHeadError.None;
    }
}
