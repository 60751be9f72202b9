using System.Buffers;

namespace WebSocketCodec;

/// <summary>What a cleartext connection's first bytes say it speaks: the verdict of
/// <see cref="HttpProtocolClassifier"/>, on which a server that takes both protocols on one port hands the connection
/// to its HTTP/1.1 or its HTTP/2 side.</summary>
public enum HttpProtocolGuess
{
    /// <summary>Not enough bytes yet: a strict prefix of the HTTP/2 preface (or nothing), or of an HTTP/1.x method.</summary>
    NeedMoreData,

    /// <summary>The whole 24-byte HTTP/2 connection preface (RFC 9113 §3.4): HTTP/2 prior knowledge.</summary>
    Http2,

    /// <summary>A method token followed by a space: an HTTP/1.x request line (RFC 9112 §3).</summary>
    Http1,

    /// <summary>Neither: a byte that no request line starts with, or a method longer than any real one. A host may
    /// close the connection, or hand it to its HTTP/1.1 side to be answered 400.</summary>
    Unrecognized,
}

/// <summary>
/// Tells HTTP/2 prior knowledge (h2c, the connection preface <c>PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n</c>) from an HTTP/1.x
/// request line by a connection's first bytes, for servers that take both on one port. It reads at most
/// <see cref="BytesToDecide"/> bytes and consumes none: a preface split over reads is <see cref="HttpProtocolGuess.NeedMoreData"/>
/// until its last byte, and an HTTP/1.x request is recognised on the space after its method.
/// </summary>
public static class HttpProtocolClassifier
{
    /// <summary>The longest method token taken for HTTP/1.x (the longest registered method, UPDATEREDIRECTREF, is 17).</summary>
    public const int MaxMethodLength = 20;

    /// <summary>The most bytes a verdict needs: the length of the preface (a method and its space are shorter).</summary>
    public const int BytesToDecide = 24;

    /// <summary>The HTTP/2 client connection preface (RFC 9113 §3.4).</summary>
    public static ReadOnlySpan<byte> Http2Preface => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8;

    /// <summary>Classifies the first bytes a client sent.</summary>
    /// <param name="start">The bytes received so far, from the connection's first.</param>
    /// <returns>The verdict; <see cref="HttpProtocolGuess.NeedMoreData"/> asks for more bytes.</returns>
    public static HttpProtocolGuess Classify(ReadOnlySpan<byte> start)
    {
        ReadOnlySpan<byte> preface = Http2Preface;
        int compared = Math.Min(start.Length, preface.Length);
        if (start[..compared].SequenceEqual(preface[..compared]))
        {
            return compared == preface.Length ? HttpProtocolGuess.Http2 : HttpProtocolGuess.NeedMoreData;
        }

        // Not the preface: an HTTP/1.x request line starts with a method token, then one space.
        int space = start[..Math.Min(start.Length, MaxMethodLength + 1)].IndexOf((byte)' ');
        ReadOnlySpan<byte> method = space < 0 ? start[..Math.Min(start.Length, MaxMethodLength + 1)] : start[..space];
        if (space == 0 || (method.Length > 0 && !HttpToken.IsToken(method)))
        {
            return HttpProtocolGuess.Unrecognized;
        }

        if (space > 0)
        {
            return HttpProtocolGuess.Http1;
        }

        return start.Length > MaxMethodLength ? HttpProtocolGuess.Unrecognized : HttpProtocolGuess.NeedMoreData;
    }

    /// <summary>Classifies the first bytes a client sent, possibly over several segments (at most
    /// <see cref="BytesToDecide"/> of them are copied).</summary>
    /// <param name="start">The bytes received so far, from the connection's first.</param>
    /// <returns>The verdict; <see cref="HttpProtocolGuess.NeedMoreData"/> asks for more bytes.</returns>
    public static HttpProtocolGuess Classify(in ReadOnlySequence<byte> start)
    {
        if (start.IsSingleSegment)
        {
            return Classify(start.FirstSpan);
        }

        Span<byte> head = stackalloc byte[BytesToDecide];
        int length = (int)Math.Min(start.Length, BytesToDecide);
        start.Slice(0, length).CopyTo(head);
        return Classify(head[..length]);
    }
}
