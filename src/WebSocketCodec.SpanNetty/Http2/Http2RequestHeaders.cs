using DotNetty.Codecs;
using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// A request's HEADERS, read with SpanNetty's own header validation off (its HPACK decoder refuses <c>:protocol</c>):
/// <see cref="IsMalformed"/> does the checks that validation would have done (RFC 9113 §8.2 and §8.3: lowercase names,
/// only request pseudo-headers and each once, no connection-specific fields, <c>te</c> only <c>trailers</c>, the
/// pseudo-headers each kind of request needs), and the fields are offered to the core's checks by name, with
/// <c>:authority</c> seen as <c>Host</c>.
/// </summary>
internal sealed class Http2RequestHeaders(IHttp2Headers headers) : IHttpHeaderSource
{
    private static readonly AsciiString ProtocolName = AsciiString.Cached(":protocol");

    public string? Method => headers.Method?.ToString();

    public string? Path => headers.Path?.ToString();

    /// <summary>The <c>:protocol</c> pseudo-header (RFC 8441), or null.</summary>
    public string? ConnectProtocol => headers.Get(ProtocolName, null)?.ToString();

    public string? this[string name]
    {
        get
        {
            if (string.Equals(name, "Host", StringComparison.OrdinalIgnoreCase) && headers.Authority is { } authority)
            {
                return authority.ToString();
            }

            IList<ICharSequence> values = headers.GetAll(new AsciiString(name.ToLowerInvariant()));
            return values.Count switch
            {
                0 => null,
                1 => values[0].ToString(),
                _ => string.Join(", ", values),
            };
        }
    }

    public int Count(string name) =>
        string.Equals(name, "Host", StringComparison.OrdinalIgnoreCase) && headers.Authority is not null
            ? 1
            : headers.GetAll(new AsciiString(name.ToLowerInvariant())).Count;

    /// <summary>Whether the request is malformed (answered with RST_STREAM PROTOCOL_ERROR); says why.</summary>
    public bool IsMalformed(out string reason)
    {
        int method = 0, scheme = 0, authority = 0, path = 0, protocol = 0;
        foreach (HeaderEntry<ICharSequence, ICharSequence> field in headers)
        {
            string name = field.Key.ToString();
            if (name.Length == 0)
            {
                return Fail(out reason, "An empty field name.");
            }

            foreach (char c in name)
            {
                if (c is >= 'A' and <= 'Z')
                {
                    return Fail(out reason, $"The field name '{name}' is not lowercase.");
                }
            }

            if (name[0] == ':')
            {
                switch (name)
                {
                    case ":method": method++; break;
                    case ":scheme": scheme++; break;
                    case ":authority": authority++; break;
                    case ":path": path++; break;
                    case ":protocol": protocol++; break;
                    default: return Fail(out reason, $"The pseudo-header '{name}' is not a request's.");
                }

                continue;
            }

            if (name is "connection" or "keep-alive" or "proxy-connection" or "transfer-encoding" or "upgrade")
            {
                return Fail(out reason, $"The connection-specific field '{name}' is not allowed in HTTP/2.");
            }

            if (name == "te" && !string.Equals(field.Value.ToString(), "trailers", StringComparison.OrdinalIgnoreCase))
            {
                return Fail(out reason, "te may only be 'trailers' in HTTP/2.");
            }
        }

        if (method > 1 || scheme > 1 || authority > 1 || path > 1 || protocol > 1)
        {
            return Fail(out reason, "A pseudo-header appears twice.");
        }

        if (method == 0)
        {
            return Fail(out reason, "The :method pseudo-header is missing.");
        }

        bool connect = Method == "CONNECT";
        if (connect && protocol == 0)
        {
            // A classic CONNECT (RFC 9113 §8.5) has :authority; one that also names :scheme and :path (as .NET's
            // HttpClient sends it) is refused all the same (501), as Kestrel refuses it, rather than reset.
            return authority == 0 ? Fail(out reason, "A CONNECT has :authority.") : Ok(out reason);
        }

        if (scheme == 0 || path == 0 || (connect && authority == 0))
        {
            return Fail(out reason, connect
                ? "An extended CONNECT has :scheme, :path and :authority (RFC 8441 §4)."
                : "A request has :scheme and :path.");
        }

        if (protocol != 0 && !connect)
        {
            return Fail(out reason, ":protocol is only for an extended CONNECT.");
        }

        return Ok(out reason);
    }

    private static bool Fail(out string reason, string why)
    {
        reason = why;
        return true;
    }

    private static bool Ok(out string reason)
    {
        reason = string.Empty;
        return false;
    }
}
