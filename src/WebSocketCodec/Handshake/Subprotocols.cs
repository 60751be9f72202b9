namespace WebSocketCodec;

/// <summary>Subprotocol negotiation (RFC 6455 §4.2.2, <c>Sec-WebSocket-Protocol = 1#token</c>): for a server of your
/// own that picks the subprotocol (<see cref="TrySelect"/>), or a client that checks its offer
/// (<see cref="ValidateOffer"/>). The packaged servers select from
/// <see cref="WebSocketAcceptOptions.Subprotocols"/>.</summary>
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

    /// <summary>
    /// Checks a client's list of subprotocols to offer: each a non-empty HTTP token (RFC 6455 §4.1), none twice.
    /// </summary>
    /// <param name="offered">The subprotocols, most preferred first.</param>
    /// <param name="paramName">The caller's parameter, for the exception.</param>
    /// <exception cref="ArgumentException">An element is not a token, or is offered twice.</exception>
    public static void ValidateOffer(IEnumerable<string>? offered, string paramName = "subprotocols")
    {
        if (offered is null)
        {
            return;
        }

        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (string? name in offered)
        {
            if (name is null || !HttpToken.IsToken(name))
            {
                throw new ArgumentException($"The subprotocol '{name}' is not an HTTP token (RFC 6455 section 4.1).", paramName);
            }

            if (!seen.Add(name))
            {
                throw new ArgumentException($"The subprotocol '{name}' is offered twice.", paramName);
            }
        }
    }
}
