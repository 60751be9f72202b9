using System.Buffers;

namespace WebSocketCodec;

/// <summary>RFC 9110 §5.6.2 tokens: check with it that a name you put in a header (a subprotocol, a field name, a
/// method) is one. A token is one or more <c>tchar</c> (letters, digits and <c>!#$%&amp;'*+-.^_`|~</c>). The one copy
/// of the table, for header values (as text) and field names and methods (as bytes).</summary>
public static class HttpToken
{
    private const string TokenCharacters = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

    private static readonly SearchValues<char> TokenChars = SearchValues.Create(TokenCharacters);

    private static readonly SearchValues<byte> TokenBytes = SearchValues.Create(System.Text.Encoding.ASCII.GetBytes(TokenCharacters));

    /// <summary>Whether <paramref name="value"/> is a non-empty token.</summary>
    /// <param name="value">The characters to check.</param>
    /// <returns>True when every character is a <c>tchar</c> and there is at least one.</returns>
    public static bool IsToken(ReadOnlySpan<char> value) => !value.IsEmpty && !value.ContainsAnyExcept(TokenChars);

    /// <summary>Whether <paramref name="value"/>, ASCII bytes as received, is a non-empty token.</summary>
    /// <param name="value">The bytes to check.</param>
    /// <returns>True when every byte is a <c>tchar</c> and there is at least one.</returns>
    public static bool IsToken(ReadOnlySpan<byte> value) => !value.IsEmpty && !value.ContainsAnyExcept(TokenBytes);

    /// <summary>Trims optional whitespace (SP and HTAB) from both ends.</summary>
    internal static ReadOnlySpan<char> TrimOws(ReadOnlySpan<char> value) => value.Trim(" \t");

    /// <summary>The index of the first <paramref name="separator"/> outside a quoted string (quoted-pairs skipped), or
    /// -1; <paramref name="unterminated"/> tells whether the value ended inside a quoted string.</summary>
    internal static int IndexOfUnquoted(ReadOnlySpan<char> value, char separator, out bool unterminated)
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
