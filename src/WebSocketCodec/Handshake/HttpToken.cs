using System.Buffers;

namespace WebSocketCodec.Handshake;

/// <summary>RFC 9110 §5.6.2 tokens: one or more <c>tchar</c>.</summary>
public static class HttpToken
{
    private static readonly SearchValues<char> TokenChars =
        SearchValues.Create("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");

    /// <summary>Whether <paramref name="value"/> is a non-empty token.</summary>
    public static bool IsToken(ReadOnlySpan<char> value) => !value.IsEmpty && !value.ContainsAnyExcept(TokenChars);

    /// <summary>Trims optional whitespace (SP and HTAB) from both ends.</summary>
    public static ReadOnlySpan<char> TrimOws(ReadOnlySpan<char> value) => value.Trim(" \t");
}
