using System.Runtime.CompilerServices;
using System.Text.Unicode;

namespace WebSocketCodec;

/// <summary>
/// Incremental UTF-8 validation for a message that arrives in pieces (fragments, or reads of one frame). The bulk of
/// each piece goes through the BCL's vectorized <see cref="Utf8.IsValid(ReadOnlySpan{byte})"/>; only a sequence cut at
/// the end of a piece (at most 3 bytes) is carried to the next one. It fails as soon as the bytes seen can no longer
/// begin valid UTF-8: a cut sequence is checked byte by byte as far as it goes (RFC 3629 §4 ranges: no overlongs,
/// no surrogates, nothing above U+10FFFF). Noncharacters such as U+FFFE are valid UTF-8 and are accepted.
/// </summary>
/// <remarks>A mutable struct: keep it in a field and call it through that field, never through a copy.</remarks>
public struct Utf8Validator
{
    private uint _pending;  // the cut sequence's bytes, first byte lowest
    private byte _pendingCount;
    private byte _expected; // the cut sequence's full length

    /// <summary>Whether a cut sequence is waiting for its next bytes.</summary>
    public readonly bool HasPendingBytes => _pendingCount != 0;

    /// <summary>Forgets any state, for the next message.</summary>
    public void Reset() => this = default;

    /// <summary>
    /// Validates the next piece of the message.
    /// </summary>
    /// <param name="piece">The next bytes of the message.</param>
    /// <param name="isFinal">Whether this piece ends the message: a sequence still cut then is invalid.</param>
    /// <returns><see langword="false"/> as soon as the message can no longer be valid UTF-8.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Append(ReadOnlySpan<byte> piece, bool isFinal)
    {
        // Nothing carried in and the piece ends in ASCII, so nothing is cut: the BCL validator decides alone.
        if (_pendingCount == 0 && !piece.IsEmpty && piece[^1] < 0x80)
        {
            return Utf8.IsValid(piece);
        }

        return AppendCut(piece, isFinal);
    }

    private bool AppendCut(ReadOnlySpan<byte> piece, bool isFinal)
    {
        if (_pendingCount != 0)
        {
            int used = CompletePending(piece);
            if (used < 0)
            {
                return false;
            }

            piece = piece.Slice(used);
        }

        if (_pendingCount == 0 && !piece.IsEmpty)
        {
            int cut = FindCutSequence(piece);
            if (!Utf8.IsValid(piece.Slice(0, cut)))
            {
                return false;
            }

            for (int i = cut; i < piece.Length; i++)
            {
                if (!AddPendingByte(piece[i]))
                {
                    return false;
                }
            }
        }

        return !isFinal || _pendingCount == 0;
    }

    /// <summary>Feeds the start of <paramref name="piece"/> to the cut sequence; returns how many bytes it took, or
    /// -1 when the sequence became invalid.</summary>
    private int CompletePending(ReadOnlySpan<byte> piece)
    {
        int used = 0;
        while (_pendingCount != 0 && used < piece.Length)
        {
            if (!AddPendingByte(piece[used]))
            {
                return -1;
            }

            used++;
        }

        return used;
    }

    /// <summary>Adds one byte of a sequence cut at a piece boundary, checking it against RFC 3629's table.</summary>
    private bool AddPendingByte(byte b)
    {
        if (_pendingCount == 0)
        {
            // A lead byte: C2-DF (2 bytes), E0-EF (3), F0-F4 (4). Anything else cannot start a cut sequence
            // (ASCII never is cut, and FindCutSequence only leaves lead bytes here).
            int expected = b switch
            {
                >= 0xC2 and <= 0xDF => 2,
                >= 0xE0 and <= 0xEF => 3,
                >= 0xF0 and <= 0xF4 => 4,
                _ => 0,
            };
            if (expected == 0)
            {
                return false;
            }

            _pending = b;
            _pendingCount = 1;
            _expected = (byte)expected;
            return true;
        }

        if (!IsValidContinuation((byte)_pending, _pendingCount, b))
        {
            return false;
        }

        _pending |= (uint)b << (8 * _pendingCount);
        _pendingCount++;
        if (_pendingCount == _expected)
        {
            _pending = 0;
            _pendingCount = 0;
            _expected = 0;
        }

        return true;
    }

    /// <summary>The byte at position <paramref name="index"/> (1-3) of a sequence led by <paramref name="lead"/>.
    /// The second byte's range depends on the lead (RFC 3629 §4); later ones are any continuation byte.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsValidContinuation(byte lead, int index, byte b)
    {
        if (index == 1)
        {
            return lead switch
            {
                0xE0 => b is >= 0xA0 and <= 0xBF, // no overlong 3-byte forms
                0xED => b is >= 0x80 and <= 0x9F, // no surrogates U+D800-U+DFFF
                0xF0 => b is >= 0x90 and <= 0xBF, // no overlong 4-byte forms
                0xF4 => b is >= 0x80 and <= 0x8F, // nothing above U+10FFFF
                _ => (b & 0xC0) == 0x80,
            };
        }

        return (b & 0xC0) == 0x80;
    }

    /// <summary>Where a multi-byte sequence cut by the end of <paramref name="piece"/> starts, or the length of
    /// <paramref name="piece"/> when the last sequence is whole (or plainly invalid, which
    /// <see cref="Utf8.IsValid(ReadOnlySpan{byte})"/> then reports).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int FindCutSequence(ReadOnlySpan<byte> piece)
    {
        int end = piece.Length;
        if (piece[end - 1] < 0x80)
        {
            return end; // ASCII ends the piece: nothing is cut.
        }

        int lowest = Math.Max(0, end - 3);
        for (int i = end - 1; i >= lowest; i--)
        {
            byte b = piece[i];
            if ((b & 0xC0) != 0x80)
            {
                int length = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
                return i + length > end ? i : end;
            }
        }

        return end;
    }
}
