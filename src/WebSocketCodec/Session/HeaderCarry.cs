using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>
/// The start of a frame header cut at the end of one input (at most 13 bytes), kept until the next input completes it.
/// A mutable struct: keep it in a field.
/// </summary>
internal struct HeaderCarry
{
    private HeaderBytes _bytes;
    private int _length;

    /// <summary>Bytes carried.</summary>
    public readonly int Length => _length;

    /// <summary>The first carried byte (FIN, RSV and the opcode of the header being carried); 0 when none.</summary>
    public readonly byte First => _length > 0 ? _bytes[0] : (byte)0;

    /// <summary>Carries <paramref name="partial"/> (shorter than the longest header).</summary>
    public void Start(ReadOnlySpan<byte> partial)
    {
        partial.CopyTo(_bytes);
        _length = partial.Length;
    }

    /// <summary>The carried bytes with as many of <paramref name="next"/> behind them as a header can use; nothing is
    /// kept until <see cref="Keep"/>.</summary>
    /// <param name="next">The next input.</param>
    /// <param name="taken">How many bytes of <paramref name="next"/> were put behind the carried ones.</param>
    [UnscopedRef]
    public ReadOnlySpan<byte> Fill(ReadOnlySpan<byte> next, out int taken)
    {
        Span<byte> bytes = _bytes;
        taken = Math.Min(next.Length, FrameHeaderReader.MaxHeaderLength - _length);
        next.Slice(0, taken).CopyTo(bytes.Slice(_length));
        return bytes.Slice(0, _length + taken);
    }

    /// <summary>Keeps the <paramref name="taken"/> bytes of the last <see cref="Fill"/> (still no whole header).</summary>
    public void Keep(int taken) => _length += taken;

    /// <summary>Forgets the carried bytes.</summary>
    public void Clear() => _length = 0;

    [InlineArray(FrameHeaderReader.MaxHeaderLength)]
    private struct HeaderBytes
    {
        private byte _element;
    }
}
