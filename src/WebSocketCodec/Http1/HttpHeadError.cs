namespace WebSocketCodec;

/// <summary>Why an HTTP/1.1 message head could not be parsed, as <see cref="HttpHeadParser"/> reports it: turn it into
/// the refusal to answer with <see cref="HandshakeFailure.From"/>.</summary>
public enum HttpHeadError : byte
{
    /// <summary>No error.</summary>
    None = 0,

    /// <summary>The start line is malformed.</summary>
    BadStartLine,

    /// <summary>A header line is malformed: no colon, whitespace before the colon, a name that is not a token, a
    /// control character in the value, or a folded (obs-fold) line.</summary>
    BadHeaderLine,

    /// <summary>A line ends with a bare LF or CR instead of CRLF.</summary>
    BadLineEnding,

    /// <summary>The head is longer than the limit (HTTP 431).</summary>
    HeadTooLarge,

    /// <summary>The head has more header fields than the limit (HTTP 431).</summary>
    TooManyFields,
}
