namespace WebSocketCodec;

/// <summary>A parsed HTTP/1.1 message head, as <see cref="HttpHeadParser"/> returns it: what a server of your own
/// validates a request from and a client of your own checks an answer in (<see cref="Http1Handshake"/>). Its start line
/// (RFC 9112 §3 request line or §4 status line) and its header fields in arrival order. Names compare
/// case-insensitively (RFC 9110 §5.1).</summary>
public sealed class HttpHead : IHttpHeaderSource
{
    private readonly List<KeyValuePair<string, string>> _fields;

    /// <summary>A head from the three words of its start line, read as a status line when the first is an HTTP
    /// version (<c>HTTP/</c>, case-sensitive: no method token has a <c>/</c>), as a request line otherwise.</summary>
    internal HttpHead(string first, string second, string third, List<KeyValuePair<string, string>> fields)
    {
        IsResponse = first.StartsWith("HTTP/", StringComparison.Ordinal);
        (Method, Target, Version, Status, ReasonPhrase) = IsResponse
            ? (string.Empty, string.Empty, first, second, third)
            : (first, second, third, string.Empty, string.Empty);
        _fields = fields;
    }

    /// <summary>Whether the start line is a status line (a response's); otherwise it is a request line.</summary>
    public bool IsResponse { get; }

    /// <summary>A request's method, e.g. <c>GET</c>; empty for a response.</summary>
    public string Method { get; }

    /// <summary>A request's target (path and query, e.g. <c>/chat?room=1</c>); empty for a response.</summary>
    public string Target { get; }

    /// <summary>The HTTP version of the request or the response, e.g. <c>HTTP/1.1</c>.</summary>
    public string Version { get; }

    /// <summary>A response's status code as sent (three digits in a well-formed response, e.g. <c>101</c>); empty for a
    /// request.</summary>
    public string Status { get; }

    /// <summary>A response's reason phrase (possibly empty); empty for a request.</summary>
    public string ReasonPhrase { get; }

    /// <summary>Every header field, in arrival order, duplicates kept.</summary>
    public IReadOnlyList<KeyValuePair<string, string>> Fields => _fields;

    /// <summary>How many fields carry <paramref name="name"/>.</summary>
    public int Count(string name)
    {
        int count = 0;
        foreach (var field in _fields)
        {
            if (string.Equals(field.Key, name, StringComparison.OrdinalIgnoreCase))
            {
                count++;
            }
        }

        return count;
    }

    /// <summary>The value of <paramref name="name"/>; several fields of that name joined with ", " (a list header,
    /// RFC 9110 §5.3); <see langword="null"/> when absent.</summary>
    public string? this[string name]
    {
        get
        {
            string? joined = null;
            foreach (var field in _fields)
            {
                if (string.Equals(field.Key, name, StringComparison.OrdinalIgnoreCase))
                {
                    joined = joined is null ? field.Value : string.Concat(joined, ", ", field.Value);
                }
            }

            return joined;
        }
    }
}
