using System.Security.Cryptography;
using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// An independent model of RFC 6455 §4.1's checks of the server's opening handshake (items 1 to 6 after "If the
/// server's response is validated"), written for the fuzzer from the RFC; it reads the parsed head's fields itself
/// (several fields of one name joined with ", ", RFC 9110 §5.3) and computes the accept value with its own SHA-1.
/// Choices the RFC leaves open, made as the library documents them:
/// <list type="bullet">
/// <item>The status line must be <c>HTTP/1.1 101</c> (a 101 is never sent to HTTP/1.0, RFC 9110 §15.2.2).</item>
/// <item>Upgrade and Connection are lists: <c>websocket</c> and <c>Upgrade</c> must be among their elements
/// (case-insensitive), the elements split at commas outside quoted strings (a stray quote, which no token has, makes
/// the rest of the value one element), after the fields of one name are combined into one value (RFC 9110 §5.3
/// allows it; a stray quote in one field line then swallows the next line's elements too).</item>
/// <item>Sec-WebSocket-Accept must be one field whose value is exactly the expected one.</item>
/// <item>A Sec-WebSocket-Extensions field, even empty (not a valid <c>1#extension</c>), fails when no extension was
/// offered; with permessage-deflate offered it must be a valid answer (<see cref="PerMessageDeflateModel"/>).</item>
/// <item>Sec-WebSocket-Protocol must be one field whose value is one of the offered subprotocols (compared
/// exactly).</item>
/// </list>
/// </summary>
public static class ClientHandshakeModel
{
    private const string Guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    /// <summary>The accept value for <paramref name="key"/>: base64(SHA-1(key + GUID)), RFC 6455 §4.2.2.</summary>
#pragma warning disable CA5350 // SHA-1 is what RFC 6455 specifies for the accept value: no security rests on it here
    public static string Accept(string key) => Convert.ToBase64String(SHA1.HashData(Encoding.ASCII.GetBytes(key + Guid)));
#pragma warning restore CA5350

    /// <summary>Why the response fails the client's checks, or null when it is accepted.</summary>
    /// <param name="version">The status line's first part.</param>
    /// <param name="status">The status code as sent.</param>
    /// <param name="fields">The header fields.</param>
    /// <param name="key">The key the client sent.</param>
    /// <param name="offered">The subprotocols offered.</param>
    /// <param name="deflateOffer">The permessage-deflate offer made, or null.</param>
    public static string? Problem(
        string version, string status, IReadOnlyList<KeyValuePair<string, string>> fields, string key, IReadOnlyCollection<string> offered,
        DeflateModelParameters? deflateOffer)
    {
        ArgumentNullException.ThrowIfNull(fields);
        ArgumentNullException.ThrowIfNull(offered);
        if (version != "HTTP/1.1" || status != "101")
        {
            return "1: not HTTP/1.1 101";
        }

        if (!ListContains(Values(fields, "Upgrade"), "websocket"))
        {
            return "2: no Upgrade: websocket";
        }

        if (!ListContains(Values(fields, "Connection"), "Upgrade"))
        {
            return "3: no Connection: Upgrade";
        }

        List<string> accepts = Values(fields, "Sec-WebSocket-Accept");
        if (accepts.Count != 1 || accepts[0] != Accept(key))
        {
            return "4: Sec-WebSocket-Accept missing, repeated or wrong";
        }

        List<string> extensions = Values(fields, "Sec-WebSocket-Extensions");
        if (extensions.Count > 0
            && (deflateOffer is null || PerMessageDeflateModel.ResponseProblem(deflateOffer, string.Join(", ", extensions), out _) is not null))
        {
            return "5: an extension not offered, or not a valid answer";
        }

        List<string> protocols = Values(fields, "Sec-WebSocket-Protocol");
        if (protocols.Count > 1 || (protocols.Count == 1 && !offered.Contains(protocols[0])))
        {
            return "6: a subprotocol not offered";
        }

        return null;
    }

    private static List<string> Values(IReadOnlyList<KeyValuePair<string, string>> fields, string name) =>
        [.. fields.Where(f => string.Equals(f.Key, name, StringComparison.OrdinalIgnoreCase)).Select(f => f.Value)];

    private static bool ListContains(List<string> values, string token) =>
        SplitList(string.Join(", ", values)).Any(e => string.Equals(e.Trim(' ', '\t'), token, StringComparison.OrdinalIgnoreCase));

    /// <summary>A list's elements: split at commas outside quoted strings (RFC 9110 §5.6.1, §5.6.4), so a stray quote
    /// swallows the rest of the value into one element.</summary>
    private static IEnumerable<string> SplitList(string value)
    {
        var element = new StringBuilder();
        bool quoted = false;
        for (int i = 0; i < value.Length; i++)
        {
            char c = value[i];
            if (!quoted && c == ',')
            {
                yield return element.ToString();
                element.Clear();
                continue;
            }

            element.Append(c);
            if (quoted && c == '\\' && i + 1 < value.Length)
            {
                element.Append(value[++i]);
            }
            else if (c == '"')
            {
                quoted = !quoted;
            }
        }

        yield return element.ToString();
    }
}
