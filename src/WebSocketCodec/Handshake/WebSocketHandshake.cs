using System.Buffers;
using System.Buffers.Text;
using System.Security.Cryptography;
using System.Text;

namespace WebSocketCodec;

/// <summary>The arithmetic of the opening handshake (RFC 6455 §4), the client's key and the server's accept value: for
/// a handshake you write yourself. <see cref="Http1Handshake"/> and the packaged servers and clients do it for
/// you.</summary>
public static class WebSocketHandshake
{
    /// <summary>The GUID appended to the key before hashing (RFC 6455 §1.3).</summary>
    public const string KeyGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    /// <summary>The length of a <c>Sec-WebSocket-Key</c>: 16 bytes in base64.</summary>
    public const int KeyLength = 24;

    /// <summary>The length of a <c>Sec-WebSocket-Accept</c>: a SHA-1 hash in base64.</summary>
    public const int AcceptLength = 28;

    private static ReadOnlySpan<byte> KeyGuidUtf8 => "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"u8;

    /// <summary>Writes a fresh <c>Sec-WebSocket-Key</c>: 16 random bytes from a cryptographically strong source, in
    /// base64 (24 ASCII bytes).</summary>
    public static void CreateKey(Span<byte> destination)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(destination.Length, KeyLength, nameof(destination));
        Span<byte> nonce = stackalloc byte[16];
        RandomNumberGenerator.Fill(nonce);
        Base64.EncodeToUtf8(nonce, destination, out _, out _);
    }

    /// <summary>A fresh <c>Sec-WebSocket-Key</c> as a string.</summary>
    public static string CreateKey()
    {
        Span<byte> key = stackalloc byte[KeyLength];
        CreateKey(key);
        return Encoding.ASCII.GetString(key);
    }

    /// <summary>Whether <paramref name="key"/> is a valid <c>Sec-WebSocket-Key</c>: base64 of exactly 16 bytes
    /// (RFC 6455 §4.1), surrounding whitespace already trimmed.</summary>
    public static bool IsValidKey(ReadOnlySpan<byte> key)
    {
        if (key.Length != KeyLength || key[KeyLength - 1] != '=' || key[KeyLength - 2] != '=')
        {
            return false;
        }

        Span<byte> decoded = stackalloc byte[18];
        return Base64.DecodeFromUtf8(key, decoded, out _, out int written) == OperationStatus.Done && written == 16;
    }

    /// <inheritdoc cref="IsValidKey(ReadOnlySpan{byte})"/>
    public static bool IsValidKey(ReadOnlySpan<char> key)
    {
        if (key.Length != KeyLength || !Ascii.IsValid(key))
        {
            return false;
        }

        Span<byte> bytes = stackalloc byte[KeyLength];
        Ascii.FromUtf16(key, bytes, out _);
        return IsValidKey(bytes);
    }

    /// <summary>Writes the <c>Sec-WebSocket-Accept</c> for <paramref name="key"/>: base64(SHA-1(key + GUID)).</summary>
    /// <param name="key">The client's key as sent (ASCII), trimmed.</param>
    /// <param name="destination">At least <see cref="AcceptLength"/> bytes.</param>
    /// <returns>The number of bytes written, <see cref="AcceptLength"/>.</returns>
    public static int ComputeAccept(ReadOnlySpan<byte> key, Span<byte> destination)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(destination.Length, AcceptLength, nameof(destination));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(key.Length, 256, nameof(key));
        Span<byte> input = stackalloc byte[key.Length + KeyGuidUtf8.Length];
        key.CopyTo(input);
        KeyGuidUtf8.CopyTo(input.Slice(key.Length));
        Span<byte> hash = stackalloc byte[SHA1.HashSizeInBytes];
#pragma warning disable CA5350 // RFC 6455 §4.2.2 fixes SHA-1 here; it proves liveness, not secrecy.
        SHA1.HashData(input, hash);
#pragma warning restore CA5350
        Base64.EncodeToUtf8(hash, destination, out _, out int written);
        return written;
    }

    /// <summary>The <c>Sec-WebSocket-Accept</c> for <paramref name="key"/> as a string.</summary>
    public static string ComputeAccept(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        if (!Ascii.IsValid(key))
        {
            throw new ArgumentException("A Sec-WebSocket-Key is ASCII.", nameof(key));
        }

        Span<byte> keyBytes = stackalloc byte[Math.Min(key.Length, 257)];
        ArgumentOutOfRangeException.ThrowIfGreaterThan(key.Length, 256, nameof(key));
        Ascii.FromUtf16(key, keyBytes, out _);
        Span<byte> accept = stackalloc byte[AcceptLength];
        ComputeAccept(keyBytes, accept);
        return Encoding.ASCII.GetString(accept);
    }

    /// <summary>Whether a server's <c>Sec-WebSocket-Accept</c> answers the client's <paramref name="key"/>.</summary>
    public static bool IsValidAccept(ReadOnlySpan<byte> key, ReadOnlySpan<byte> accept)
    {
        Span<byte> expected = stackalloc byte[AcceptLength];
        ComputeAccept(key, expected);
        return accept.SequenceEqual(expected);
    }
}
