namespace WebSocketCodec;

/// <summary>
/// Enumerates the elements of an HTTP list header value (RFC 9110 §5.6.1: <c>#element</c>): split at commas that
/// are not inside a quoted string, trimmed of optional whitespace, empty elements skipped. Allocation-free:
/// <c>foreach (var element in new HeaderListEnumerator(value))</c>.
/// </summary>
internal ref struct HeaderListEnumerator
{
    private ReadOnlySpan<char> _rest;
    private bool _done;

    /// <summary>Starts enumerating <paramref name="value"/>.</summary>
    public HeaderListEnumerator(ReadOnlySpan<char> value)
    {
        _rest = value;
        _done = false;
        Current = default;
    }

    /// <summary>The current element, trimmed and non-empty.</summary>
    public ReadOnlySpan<char> Current { get; private set; }

    /// <summary>Whether the last element ended inside an unterminated quoted string (a malformed value).</summary>
    public bool Malformed { get; private set; }

    /// <summary>Returns this enumerator, for <c>foreach</c>.</summary>
    public readonly HeaderListEnumerator GetEnumerator() => this;

    /// <summary>Moves to the next non-empty element.</summary>
    public bool MoveNext()
    {
        while (!_done)
        {
            int end = HttpToken.IndexOfUnquoted(_rest, ',', out bool unterminated);
            Malformed |= unterminated;
            ReadOnlySpan<char> element;
            if (end < 0)
            {
                element = _rest;
                _rest = default;
                _done = true;
            }
            else
            {
                element = _rest.Slice(0, end);
                _rest = _rest.Slice(end + 1);
            }

            element = HttpToken.TrimOws(element);
            if (!element.IsEmpty)
            {
                Current = element;
                return true;
            }
        }

        return false;
    }
}
