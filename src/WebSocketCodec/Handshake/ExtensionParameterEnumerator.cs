namespace WebSocketCodec;

/// <summary>Enumerates <c>name[=value]</c> parameters separated by <c>;</c>; a quoted value is returned without its
/// quotes (escapes kept as sent). Sets <see cref="Malformed"/> and stops on a parameter that breaks the grammar.</summary>
internal ref struct ExtensionParameterEnumerator
{
    private ReadOnlySpan<char> _rest;

    /// <summary>Starts enumerating the text after an extension's name.</summary>
    public ExtensionParameterEnumerator(ReadOnlySpan<char> parameters)
    {
        _rest = parameters;
        Name = default;
        Value = default;
        HasValue = false;
        Malformed = false;
    }

    /// <summary>The current parameter's name.</summary>
    public ReadOnlySpan<char> Name { get; private set; }

    /// <summary>The current parameter's value, unquoted.</summary>
    public ReadOnlySpan<char> Value { get; private set; }

    /// <summary>Whether the current parameter has a value.</summary>
    public bool HasValue { get; private set; }

    /// <summary>Whether a parameter broke the grammar; enumeration stopped there.</summary>
    public bool Malformed { get; private set; }

    /// <summary>Returns this enumerator, for <c>foreach</c>; read <see cref="Name"/> and <see cref="Value"/> through
    /// the enumerator itself when enumerating with <see cref="MoveNext"/>.</summary>
    public readonly ExtensionParameterEnumerator GetEnumerator() => this;

    /// <summary>The current parameter as a (name, value) pair.</summary>
    public readonly ExtensionParameterEnumerator Current => this;

    /// <summary>Moves to the next parameter.</summary>
    public bool MoveNext()
    {
        if (Malformed || _rest.IsEmpty)
        {
            return false;
        }

        int end = HttpToken.IndexOfUnquoted(_rest, ';', out bool unterminated);
        Malformed |= unterminated;
        ReadOnlySpan<char> parameter = HttpToken.TrimOws(end < 0 ? _rest : _rest.Slice(0, end));
        _rest = end < 0 ? default : _rest.Slice(end + 1);
        if (end >= 0 && _rest.IsEmpty)
        {
            Malformed = true; // a trailing ';' with no parameter
        }

        int equals = parameter.IndexOf('=');
        Name = HttpToken.TrimOws(equals < 0 ? parameter : parameter.Slice(0, equals));
        HasValue = equals >= 0;
        Value = default;
        if (!HttpToken.IsToken(Name))
        {
            Malformed = true;
            return false;
        }

        if (HasValue)
        {
            ReadOnlySpan<char> value = HttpToken.TrimOws(parameter.Slice(equals + 1));
            if (value.Length >= 2 && value[0] == '"' && value[^1] == '"')
            {
                value = value[1..^1];
            }
            else if (!HttpToken.IsToken(value))
            {
                Malformed = true;
                return false;
            }

            Value = value;
        }

        return true;
    }
}
