namespace WebSocketCodec;

/// <summary>The client's check of the server's final answer to an RFC 8441 extended CONNECT, shared by the HTTP/2
/// clients: call it in an HTTP/2 client of your own (<c>WebSocketHttp2Client</c> already does).</summary>
/// <remarks>It requires <c>:status</c> 200 on a stream the answer does not end (RFC 8441 §4: the stream then carries
/// the websocket), a subprotocol only from those offered (one token), and no extension but permessage-deflate, only if
/// offered, answered acceptably (RFC 7692 §5). Several fields of one name are read as one list, joined with ", ". A
/// host maps its HTTP/2 response in (the status, whether the HEADERS ended the stream, the two fields' values) and
/// opens the websocket with what it returns.</remarks>
public static class ExtendedConnectResponse
{
    /// <summary>Checks the answer.</summary>
    /// <param name="status">The <c>:status</c> (null or empty: none).</param>
    /// <param name="reason">The reason phrase to quote in a refusal, if the client has one.</param>
    /// <param name="endStream">Whether the answer ended the stream.</param>
    /// <param name="subprotocols">The <c>sec-websocket-protocol</c> values (empty: none).</param>
    /// <param name="extensions">The <c>sec-websocket-extensions</c> values (empty: none).</param>
    /// <param name="options">What the client offered.</param>
    /// <param name="target">The server, for the messages.</param>
    /// <param name="deflate">The permessage-deflate parameters the server settled, or null.</param>
    /// <returns>The subprotocol the server selected, or null.</returns>
    /// <exception cref="WebSocketHandshakeException">The answer does not open the websocket (with the server's status
    /// when it was not 200).</exception>
    public static string? Validate(
        string? status, string? reason, bool endStream, IReadOnlyCollection<string> subprotocols, IReadOnlyCollection<string> extensions,
        WebSocketClientOptions options, string target, out DeflateParameters? deflate)
    {
        ArgumentNullException.ThrowIfNull(subprotocols);
        ArgumentNullException.ThrowIfNull(extensions);
        ArgumentNullException.ThrowIfNull(options);
        deflate = null;
        if (status != "200")
        {
            string shown = string.IsNullOrEmpty(status) ? "no :status" : reason is null ? status : $"{status} {reason}";
            string message = $"{target} refused the websocket over HTTP/2 with {shown}.";
            throw int.TryParse(status, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int code)
                ? new WebSocketHandshakeException(message, code)
                : new WebSocketHandshakeException(message);
        }

        if (endStream)
        {
            throw new WebSocketHandshakeException($"{target} answered 200 but ended the stream: there is no websocket to carry.");
        }

        if (extensions.Count > 0)
        {
            string answer = string.Join(", ", extensions);
            if (options.Deflate is null)
            {
                throw new WebSocketHandshakeException($"{target} accepted with the extension '{answer}', though none was offered.");
            }

            if (!PerMessageDeflateNegotiation.TryParseAnswer(answer, options.Deflate, out DeflateParameters parameters, out string? error))
            {
                throw new WebSocketHandshakeException($"{target} answered permessage-deflate unacceptably: {error}.");
            }

            deflate = parameters;
        }

        if (subprotocols.Count == 0)
        {
            return null;
        }

        // Optional whitespace only (SP, HTAB): a CR or a no-break space is part of the value, which is then no token.
        string selected = HttpToken.TrimOws(string.Join(", ", subprotocols)).ToString();
        if (!HttpToken.IsToken(selected) || !options.Subprotocols.Contains(selected, StringComparer.Ordinal))
        {
            throw new WebSocketHandshakeException($"{target} selected the subprotocol '{selected}', which was not offered.");
        }

        return selected;
    }
}
