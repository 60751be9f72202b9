namespace WebSocketCodec.Fuzz;

/// <summary>One parameter of a modelled extension element: its name, and its value after quoted-string unescaping
/// (null: none).</summary>
/// <param name="Name">The name.</param>
/// <param name="Value">The value, unescaped, or null.</param>
public sealed record ModelParameter(string Name, string? Value);

/// <summary>One element of a modelled <c>Sec-WebSocket-Extensions</c> list: its name and parameters, or malformed.</summary>
/// <param name="Name">The extension's name (empty when malformed).</param>
/// <param name="Parameters">Its parameters, in order.</param>
/// <param name="Malformed">Whether the element breaks the grammar.</param>
public sealed record ModelElement(string Name, IReadOnlyList<ModelParameter> Parameters, bool Malformed);

/// <summary>
/// An independent model of RFC 6455 §9.1's extension list, written for the fuzzer from the RFC (it shares no code
/// with the library): <c>1#extension</c>, <c>extension = extension-token *( ";" extension-param )</c>,
/// <c>extension-param = token [ "=" (token | quoted-string) ]</c>, a quoted value being a token once unescaped.
/// Choices the RFCs leave open, made here as the library documents them:
/// <list type="bullet">
/// <item>Whitespace (SP, HTAB) may surround every token and separator (RFC 6455 is written with RFC 2616's implied
/// <c>*LWS</c>), and empty list elements are skipped (RFC 9110 §5.6.1).</item>
/// <item>An element that breaks the grammar is one malformed element: the list goes on at the next comma outside a
/// quoted string (a server then declines that offer and considers the others).</item>
/// <item>A quoted string is <c>DQUOTE *( qdtext | quoted-pair ) DQUOTE</c> with any character but DQUOTE and
/// backslash as qdtext.</item>
/// </list>
/// </summary>
public static class ExtensionListModel
{
    private const string TokenSpecials = "!#$%&'*+-.^_`|~";

    /// <summary>Whether <paramref name="c"/> is an RFC 9110 tchar.</summary>
    public static bool IsTokenChar(char c) => c is >= 'a' and <= 'z' or >= 'A' and <= 'Z' or >= '0' and <= '9' || TokenSpecials.Contains(c);

    /// <summary>Whether <paramref name="s"/> is a token.</summary>
    public static bool IsToken(string s) => s.Length > 0 && s.All(IsTokenChar);

    /// <summary>Parses a whole header value into its non-empty elements.</summary>
    public static List<ModelElement> Parse(string header)
    {
        ArgumentNullException.ThrowIfNull(header);
        var elements = new List<ModelElement>();
        int at = 0;
        while (at < header.Length)
        {
            SkipWhitespace(header, ref at);
            if (at >= header.Length)
            {
                break;
            }

            if (header[at] == ',')
            {
                at++; // an empty element
                continue;
            }

            int start = at;
            ModelElement? element = ParseElement(header, ref at);
            if (element is null)
            {
                elements.Add(new ModelElement(string.Empty, [], Malformed: true));
                at = NextElement(header, start);
            }
            else
            {
                elements.Add(element);
            }
        }

        return elements;
    }

    /// <summary>Parses one element from <paramref name="at"/> up to and including the comma that ends it; null when
    /// it breaks the grammar (<paramref name="at"/> is then somewhere inside it).</summary>
    private static ModelElement? ParseElement(string s, ref int at)
    {
        string? name = ReadToken(s, ref at);
        if (name is null)
        {
            return null;
        }

        var parameters = new List<ModelParameter>();
        while (true)
        {
            SkipWhitespace(s, ref at);
            if (at >= s.Length)
            {
                return new ModelElement(name, parameters, false);
            }

            if (s[at] == ',')
            {
                at++;
                return new ModelElement(name, parameters, false);
            }

            if (s[at] != ';')
            {
                return null;
            }

            at++;
            SkipWhitespace(s, ref at);
            string? parameter = ReadToken(s, ref at);
            if (parameter is null)
            {
                return null;
            }

            SkipWhitespace(s, ref at);
            string? value = null;
            if (at < s.Length && s[at] == '=')
            {
                at++;
                SkipWhitespace(s, ref at);
                value = at < s.Length && s[at] == '"' ? ReadQuoted(s, ref at) : ReadToken(s, ref at);
                if (value is null || !IsToken(value))
                {
                    return null; // RFC 6455 §9.1: a quoted value must be a token once unescaped
                }
            }

            parameters.Add(new ModelParameter(parameter, value));
        }
    }

    private static string? ReadToken(string s, ref int at)
    {
        int start = at;
        while (at < s.Length && IsTokenChar(s[at]))
        {
            at++;
        }

        return at > start ? s[start..at] : null;
    }

    /// <summary>Reads a quoted string at <paramref name="at"/> (on its opening quote), unescaped; null if it does not
    /// end.</summary>
    private static string? ReadQuoted(string s, ref int at)
    {
        var value = new System.Text.StringBuilder();
        at++;
        while (at < s.Length)
        {
            char c = s[at++];
            if (c == '"')
            {
                return value.ToString();
            }

            if (c == '\\')
            {
                if (at >= s.Length)
                {
                    return null;
                }

                c = s[at++];
            }

            value.Append(c);
        }

        return null;
    }

    private static void SkipWhitespace(string s, ref int at)
    {
        while (at < s.Length && s[at] is ' ' or '\t')
        {
            at++;
        }
    }

    /// <summary>Recovers from a malformed element that began at <paramref name="start"/>: where the next one begins,
    /// just after the next comma outside a quoted string.</summary>
    private static int NextElement(string s, int start)
    {
        bool quoted = false;
        for (int i = start; i < s.Length; i++)
        {
            char c = s[i];
            if (quoted)
            {
                if (c == '\\')
                {
                    i++;
                }
                else if (c == '"')
                {
                    quoted = false;
                }
            }
            else if (c == '"')
            {
                quoted = true;
            }
            else if (c == ',')
            {
                return i + 1;
            }
        }

        return s.Length;
    }
}
