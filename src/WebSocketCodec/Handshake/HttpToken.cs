using System.Buffers;

namespace WebSocketCodec;

/// <summary>RFC 9110 §5.6.2 tokens: one or more <c>tchar</c>.</summary>
internal static class HttpToken
{
    private static readonly SearchValues<char> TokenChars =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

    /// <summary>Whether <paramref name="value"/> is a non-empty token.</summary>
    public static bool IsToken(ReadOnlySpan<char> value) => !value.IsEmpty && !value.ContainsAnyExcept(TokenChars);

    /// <summary>Trims optional whitespace (SP and HTAB) from both ends.</summary>
    public static ReadOnlySpan<char> TrimOws(ReadOnlySpan<char> value) => value.Trim(" \t");

    /// <summary>The index of the first <paramref name="separator"/> outside a quoted string (quoted-pairs skipped), or
    /// -1; <paramref name="unterminated"/> tells whether the value ended inside a quoted string.</summary>
    public static int IndexOfUnquoted(ReadOnlySpan<char> value, char separator, out bool unterminated)
    {
        bool quoted = false;
        for (int i = 0; i < value.Length; i++)
        {
            char c = value[i];
            if (quoted)
            {
                if (c == '\\')
                {
                    i++; // quoted-pair: skip the escaped character
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
            else if (c == separator)
            {
                unterminated = false;
                return i;
            }
        }

        unterminated = quoted;
        return -1;
    }
}
