using System.Text;

namespace WebSocketCodec.Soak;

/// <summary>
/// The bytes messages are cut from, made once from the seed: random binary, and random UTF-8 text of 1-4 byte
/// characters (40% ASCII, 25% two bytes, 25% three, 10% four). A message copies a slice at a seeded offset, so large
/// payloads cost a copy, not a random draw per byte.
/// </summary>
public sealed class SoakMaterial
{
    /// <summary>How many starting offsets there are.</summary>
    public const int Starts = 1 << 18;

    private SoakMaterial(byte[] binary, byte[] text)
    {
        Binary = binary;
        Text = text;
    }

    /// <summary>Random bytes: <see cref="Starts"/> + <see cref="SoakTraffic.MaxLength"/>.</summary>
    public byte[] Binary { get; }

    /// <summary>Valid UTF-8, at least <see cref="Starts"/> + <see cref="SoakTraffic.MaxLength"/> + 4 bytes.</summary>
    public byte[] Text { get; }

    /// <summary>Makes the material for <paramref name="seed"/>.</summary>
    public static SoakMaterial Create(ulong seed)
    {
        var random = new SoakRandom(SoakRandom.Derive(seed, -1, -1));
        byte[] binary = new byte[Starts + SoakTraffic.MaxLength];
        random.NextBytes(binary);
        int need = Starts + SoakTraffic.MaxLength + 4;
        byte[] text = new byte[need + 4];
        int length = 0;
        while (length < need)
        {
            int kind = random.Next(100);
            int scalar = kind switch
            {
                < 40 => random.Next(0x20, 0x7E),
                < 65 => random.Next(0x80, 0x7FF),
                < 90 => NextThreeByte(ref random),
                _ => random.Next(0x10000, 0x10FFFF),
            };
            length += new Rune(scalar).EncodeToUtf8(text.AsSpan(length));
        }

        return new SoakMaterial(binary, text.AsSpan(0, length).ToArray());
    }

    /// <summary>Whether <paramref name="b"/> is a UTF-8 continuation byte (10xxxxxx): a cut before it splits a character.</summary>
    public static bool IsContinuation(byte b) => (b & 0xC0) == 0x80;

    private static int NextThreeByte(ref SoakRandom random)
    {
        int scalar = random.Next(0x800, 0xFFFF - 0x800);
        return scalar >= 0xD800 ? scalar + 0x800 : scalar; // skip the surrogates
    }
}
