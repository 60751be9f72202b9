using System.Text;
using DotNetty.Buffers;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// permessage-deflate (RFC 7692) in the HTTP/1.1 opening handshake of the SpanNetty handlers, on the core's
/// negotiation: the server's 101 with its <c>Sec-WebSocket-Extensions</c> answer, and the client's check of that answer
/// (declined is fine; a malformed answer, a parameter not offered or an extension not offered fails the handshake).
/// </summary>
internal static class DeflateHandshake
{
    private const string ExtensionsField = "Sec-WebSocket-Extensions";

    /// <summary>Writes the 101 accepting <paramref name="key"/>, with the subprotocol and the extensions answer, if any.</summary>
    public static void WriteAccept(IByteBuffer response, string key, string? subprotocol, string? extensions)
    {
        Http1Handshake.WriteAccept(response, key, subprotocol);
        if (extensions is null)
        {
            return;
        }

        // The core's 101 ends with the empty line: put the field in front of it. (The answer is the core's own text,
        // one line of tokens.)
        response.SetWriterIndex(response.WriterIndex - 2);
        response.WriteString($"{ExtensionsField}: {extensions}\r\n\r\n", Encoding.ASCII);
    }

    /// <summary>Checks the server's 101 (as <see cref="Http1Handshake.ValidateResponse"/> does) and, when
    /// <paramref name="offered"/> was offered, its permessage-deflate answer.</summary>
    /// <param name="response">The response head.</param>
    /// <param name="key">The key sent.</param>
    /// <param name="subprotocols">The subprotocols offered.</param>
    /// <param name="offered">The permessage-deflate options offered, or null when none was.</param>
    /// <param name="deflate">The parameters settled, or null when the server declined (or none was offered).</param>
    /// <returns>The subprotocol selected.</returns>
    /// <exception cref="WebSocketHandshakeException">The answer does not accept the websocket as offered.</exception>
    public static string? ValidateResponse(
        HttpHead response, string key, IReadOnlyCollection<string> subprotocols, PerMessageDeflateOptions? offered, out DeflateParameters? deflate)
    {
        deflate = null;
        string? extensions = offered is null ? null : response[ExtensionsField];
        if (extensions is null)
        {
            return Http1Handshake.ValidateResponse(response, key, subprotocols); // refuses any extension not offered
        }

        var others = new List<KeyValuePair<string, string>>(response.Fields.Count);
        foreach (KeyValuePair<string, string> field in response.Fields)
        {
            if (!field.Key.Equals(ExtensionsField, StringComparison.OrdinalIgnoreCase))
            {
                others.Add(field);
            }
        }

        string? subprotocol = Http1Handshake.ValidateResponse(new HttpHead(response.Part1, response.Part2, response.Part3, others), key, subprotocols);
        if (!PerMessageDeflateNegotiation.TryParseAnswer(extensions, offered!, out DeflateParameters parameters, out string? error))
        {
            throw new WebSocketHandshakeException($"The server's Sec-WebSocket-Extensions answer is not acceptable: {error}.", 101);
        }

        deflate = parameters;
        return subprotocol;
    }
}
