using System.Buffers;
using System.Globalization;
using System.Text;

namespace WebSocketCodec;

/// <summary>Writes the HTTP/1.1 messages of the opening handshake (RFC 6455 §4.1-§4.2) and checks the server's answer
/// on the client side: for a server or client of your own over raw bytes, as the packaged HTTP/1.1 servers and clients
/// use it. Writes go straight into an <see cref="IBufferWriter{T}"/> (a <c>PipeWriter</c>, say).</summary>
public static class Http1Handshake
{
    /// <summary>Writes the 101 response accepting <paramref name="key"/>, with the selected subprotocol if any. No
    /// extension is accepted.</summary>
    public static void WriteAccept(IBufferWriter<byte> output, string key, string? subprotocol = null) =>
        WriteAccept(output, key, subprotocol, null);

    /// <summary>Writes the 101 response accepting <paramref name="key"/>, with the selected subprotocol and the
    /// accepted extensions (a <c>Sec-WebSocket-Extensions</c> value, e.g. a permessage-deflate answer), if any.</summary>
    public static void WriteAccept(IBufferWriter<byte> output, string key, string? subprotocol, string? extensions)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(key);
        WriteResponse(output, 101, WebSocketAcceptDecision.AcceptHeaders(multiplexed: false, key, subprotocol, extensions), null);
    }

    /// <summary>Writes a refusal that closes the connection: the status, <c>Sec-WebSocket-Version: 13</c> for 426, and
    /// the message as a plain-text body.</summary>
    public static void WriteRejection(IBufferWriter<byte> output, HandshakeFailure failure)
    {
        ArgumentNullException.ThrowIfNull(output);
        WriteResponse(output, failure.StatusCode, WebSocketAcceptDecision.RefusalHeaders(failure, multiplexed: false), failure.Message + "\n");
    }

    /// <summary>Writes a server's decision as an HTTP/1.1 response: the 101 that accepts, or the refusal (with its
    /// body's <c>Content-Length</c>) that closes the connection.</summary>
    /// <param name="output">Where to write.</param>
    /// <param name="decision">A decision on an HTTP/1.1 request (not <see cref="WebSocketAcceptDecision.IsMultiplexed"/>).</param>
    public static void WriteResponse(IBufferWriter<byte> output, WebSocketAcceptDecision decision)
    {
        ArgumentNullException.ThrowIfNull(output);
        ArgumentNullException.ThrowIfNull(decision);
        if (decision.IsMultiplexed)
        {
            throw new ArgumentException("The decision answers an HTTP/2 stream.", nameof(decision));
        }

        WriteResponse(output, decision.StatusCode, decision.ResponseHeaders, decision.ResponseBody);
    }

    private static void WriteResponse(IBufferWriter<byte> output, int status, IReadOnlyList<KeyValuePair<string, string>> headers, string? body)
    {
        var text = new StringBuilder(256)
            .Append(CultureInfo.InvariantCulture, $"HTTP/1.1 {status} {ReasonPhrase(status)}\r\n");
        foreach ((string name, string value) in headers)
        {
            text.Append(name).Append(": ").Append(value).Append("\r\n");
        }

        if (body is not null)
        {
            text.Append(CultureInfo.InvariantCulture, $"Content-Length: {Encoding.UTF8.GetByteCount(body)}\r\n");
        }

        Write(output, text.Append("\r\n").Append(body));
    }

    /// <summary>Writes a client's upgrade request.</summary>
    /// <param name="output">Where to write.</param>
    /// <param name="host">The Host header value (host, and port when not the default).</param>
    /// <param name="target">The request target, e.g. <c>/echo?x=1</c>.</param>
    /// <param name="key">A key from <see cref="WebSocketHandshake.CreateKey()"/>.</param>
    /// <param name="subprotocols">Subprotocols to offer, most preferred first.</param>
    /// <param name="headers">Further header fields (Origin, Authorization, cookies...).</param>
    public static void WriteRequest(
        IBufferWriter<byte> output, string host, string target, string key,
        IEnumerable<string>? subprotocols = null, IEnumerable<KeyValuePair<string, string>>? headers = null)
    {
        ArgumentNullException.ThrowIfNull(output);
        Subprotocols.ValidateOffer(subprotocols, nameof(subprotocols));
        var text = new StringBuilder(256)
            .Append("GET ").Append(target).Append(" HTTP/1.1\r\nHost: ").Append(host)
            .Append("\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ")
            .Append(key).Append("\r\n");
        string offered = subprotocols is null ? string.Empty : string.Join(", ", subprotocols);
        if (offered.Length > 0)
        {
            text.Append("Sec-WebSocket-Protocol: ").Append(offered).Append("\r\n");
        }

        foreach (var (name, value) in headers ?? [])
        {
            if (!HttpToken.IsToken(name) || value.AsSpan().ContainsAny('\r', '\n'))
            {
                throw new ArgumentException($"The header '{name}' is not a valid field.", nameof(headers));
            }

            text.Append(name).Append(": ").Append(value).Append("\r\n");
        }

        Write(output, text.Append("\r\n"));
    }

    /// <summary>Checks a server's answer to our request: 101, <c>Upgrade: websocket</c>, <c>Connection: Upgrade</c>,
    /// the right <c>Sec-WebSocket-Accept</c>, a subprotocol only from those offered, and no extension (none was
    /// offered).</summary>
    /// <param name="response">The parsed response head.</param>
    /// <param name="key">The <c>Sec-WebSocket-Key</c> we sent.</param>
    /// <param name="offeredSubprotocols">The subprotocols we offered.</param>
    /// <returns>The subprotocol the server selected, or null for none.</returns>
    /// <exception cref="WebSocketHandshakeException">The answer does not accept the websocket (its
    /// <see cref="WebSocketHandshakeException.StatusCode"/> is the server's status).</exception>
    public static string? ValidateResponse(HttpHead response, string key, IReadOnlyCollection<string> offeredSubprotocols) =>
        ValidateResponse(response, key, offeredSubprotocols, null, out _);

    /// <summary>As the public overload, and with permessage-deflate offered (<paramref name="offeredDeflate"/> set) the
    /// server's <c>Sec-WebSocket-Extensions</c> is checked against the offer: absent (declined) is fine, a valid answer
    /// gives <paramref name="deflate"/>, anything else fails the handshake (RFC 7692 §5).</summary>
    /// <param name="response">The server's response head.</param>
    /// <param name="key">The <c>Sec-WebSocket-Key</c> the client sent.</param>
    /// <param name="offeredSubprotocols">The subprotocols the client offered.</param>
    /// <param name="offeredDeflate">The permessage-deflate the client offered, or null.</param>
    /// <param name="deflate">What the server's answer settled, or null when it declined (or nothing was offered).</param>
    /// <returns>The subprotocol the server chose, or null.</returns>
    /// <exception cref="WebSocketHandshakeException">The response does not complete the handshake.</exception>
    public static string? ValidateResponse(
        HttpHead response, string key, IReadOnlyCollection<string> offeredSubprotocols,
        PerMessageDeflateOptions? offeredDeflate, out DeflateParameters? deflate)
    {
        deflate = null;
        ArgumentNullException.ThrowIfNull(response);
        ArgumentNullException.ThrowIfNull(offeredSubprotocols);
        int status = response.Status.Length == 3 && int.TryParse(response.Status, NumberStyles.None, CultureInfo.InvariantCulture, out int parsed)
            && parsed >= 100 ? parsed : 0;
        if (!response.IsResponse)
        {
            throw Refused("The server's answer does not start with a status line.");
        }

        if (response.Version != "HTTP/1.1" || response.Status != "101")
        {
            throw Refused($"The server answered {response.Status} {response.ReasonPhrase} instead of 101 Switching Protocols.");
        }

        if (!WebSocketUpgradeRequest.ListHas(response["Upgrade"], "websocket")
            || !WebSocketUpgradeRequest.ListHas(response["Connection"], "Upgrade"))
        {
            throw Refused("The 101 response lacks Upgrade: websocket or Connection: Upgrade.");
        }

        string? accept = response["Sec-WebSocket-Accept"];
        if (response.Count("Sec-WebSocket-Accept") != 1 || accept != WebSocketHandshake.ComputeAccept(key))
        {
            throw Refused("The Sec-WebSocket-Accept header does not match the key.");
        }

        string? extensions = response.Count("Sec-WebSocket-Extensions") > 1
            ? string.Join(", ", response.Fields.Where(f => f.Key.Equals("Sec-WebSocket-Extensions", StringComparison.OrdinalIgnoreCase)).Select(f => f.Value))
            : response["Sec-WebSocket-Extensions"];
        if (extensions is not null)
        {
            if (offeredDeflate is null)
            {
                throw Refused("The server accepted an extension that was not offered.");
            }

            if (!PerMessageDeflateNegotiation.TryParseAnswer(extensions, offeredDeflate, out DeflateParameters parameters, out string? error))
            {
                throw Refused($"The server's Sec-WebSocket-Extensions answer is not acceptable: {error}");
            }

            deflate = parameters;
        }

        string? subprotocol = response["Sec-WebSocket-Protocol"];
        if (subprotocol is not null && (response.Count("Sec-WebSocket-Protocol") != 1 || !offeredSubprotocols.Contains(subprotocol)))
        {
            throw Refused($"The server selected the subprotocol '{subprotocol}', which was not offered.");
        }

        return subprotocol;

        WebSocketHandshakeException Refused(string message) => status == 0
            ? new(message)
            : new(message, status) { RetryAfter = RetryAfterHeader.Parse(response["Retry-After"], DateTimeOffset.UtcNow) };
    }

    private static string ReasonPhrase(int status) => status switch
    {
        101 => "Switching Protocols",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        426 => "Upgrade Required",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Error",
    };

    private static void Write(IBufferWriter<byte> output, StringBuilder text)
    {
        foreach (ReadOnlyMemory<char> chunk in text.GetChunks())
        {
            int length = Encoding.UTF8.GetByteCount(chunk.Span);
            output.Advance(Encoding.UTF8.GetBytes(chunk.Span, output.GetSpan(length)));
        }
    }
}
