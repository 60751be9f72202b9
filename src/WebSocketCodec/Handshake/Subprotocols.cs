namespace WebSocketCodec.Handshake;

/// <summary>Subprotocol negotiation (RFC 6455 §4.2.2, <c>Sec-WebSocket-Protocol = 1#token</c>).</summary>
public static class Subprotocols
{
    /// <summary>
    /// Picks the subprotocol to answer with: the first of <paramref name="supported"/> (the server's order of
    /// preference) that the client offered. Names compare case-sensitively.
    /// </summary>
    /// <param name="offered">The client's <c>Sec-WebSocket-Protocol</c> value(s), comma-separated.</param>
    /// <param name="supported">The server's subprotocols, most preferred first.</param>
    /// <param name="selected">The choice, or <see langword="null"/> when none matches (answer without the
    /// header).</param>
    /// <returns><see langword="false"/> when the offered value is malformed (an element is not a token): refuse the
    /// handshake with 400.</returns>
    public static bool TrySelect(ReadOnlySpan<char> offered, ReadOnlySpan<string> supported, out string? selected)
    {
        selected = null;
        int best = int.MaxValue;
        var elements = new HeaderListEnumerator(offered);
        foreach (ReadOnlySpan<char> element in elements)
        {
            if (!HttpToken.IsToken(element))
            {
                selected = null;
                return false;
            }

            for (int i = 0; i < supported.Length && i < best; i++)
            {
                if (element.SequenceEqual(supported[i]))
                {
                    best = i;
                    selected = supported[i];
                    break;
                }
            }
        }

        return true;
    }
}
