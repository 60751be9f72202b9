using System.IO.Compression;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The independent inflate the <c>inflate</c> target compares with: System.IO.Compression's raw
/// <see cref="DeflateStream"/> over one memory stream holding a whole context's bytes (each message's fragments, and
/// the <c>00 00 FF FF</c> tail after a final fragment, RFC 7692 §7.2.2), read to its end or a cap. Nothing of the
/// library's inflater (its source stream, its fragment-by-fragment feeding, its limit) is used.
/// </summary>
public static class ReferenceInflate
{
    private static readonly byte[] Tail = [0x00, 0x00, 0xFF, 0xFF];

    /// <summary>The bytes of one context: the fragments, a tail after each final one.</summary>
    public static byte[] Join(byte[] input, IEnumerable<(int Start, int Length, bool Final)> fragments)
    {
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(fragments);
        var bytes = new List<byte>();
        foreach ((int start, int length, bool final) in fragments)
        {
            bytes.AddRange(input.AsSpan(start, length).ToArray());
            if (final)
            {
                bytes.AddRange(Tail);
            }
        }

        return [.. bytes];
    }

    /// <summary>Inflates <paramref name="compressed"/>, at most <paramref name="cap"/> bytes.</summary>
    /// <returns>What was inflated, and whether the data was found invalid (what was inflated is then what came out
    /// before the failing read).</returns>
    public static (byte[] Output, bool Invalid) Inflate(byte[] compressed, long cap)
    {
        var output = new MemoryStream();
        using var inflate = new DeflateStream(new MemoryStream(compressed, writable: false), CompressionMode.Decompress);
        var buffer = new byte[4096];
        try
        {
            while (output.Length < cap)
            {
                int read = inflate.Read(buffer, 0, (int)Math.Min(buffer.Length, cap - output.Length));
                if (read == 0)
                {
                    break;
                }

                output.Write(buffer, 0, read);
            }
        }
        catch (InvalidDataException)
        {
            return (output.ToArray(), true);
        }

        return (output.ToArray(), false);
    }
}
