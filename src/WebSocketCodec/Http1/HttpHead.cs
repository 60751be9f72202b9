namespace WebSocketCodec;

/// <summary>
/// A parsed HTTP/1.1 message head: the three parts of its start line and its header fields in arrival order.
/// Names compare case-insensitively (RFC 9110 §5.1).
/// </summary>
public sealed class HttpHead : IHttpHeaderSource
{
    private readonly List<KeyValuePair<string, string>> _fields;

    internal HttpHead(string part1, string part2, string part3, List<KeyValuePair<string, string>> fields)
    {
        Part1 = part1;
        Part2 = part2;
        Part3 = part3;
        _fields = fields;
    }

    /// <summary>A request's method, or a response's HTTP version.</summary>
    public string Part1 { get; }

    /// <summary>A request's target, or a response's status code.</summary>
    public string Part2 { get; }

    /// <summary>A request's HTTP version, or a response's reason phrase.</summary>
    public string Part3 { get; }

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
