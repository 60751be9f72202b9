namespace WebSocketCodec.Fuzz;

/// <summary>
/// A small seeded generator (SplitMix64): the same seed gives the same numbers on every machine and runtime, so an
/// input is reproduced from (seed, target, index) alone.
/// </summary>
public sealed class FuzzRng
{
    private ulong _state;

    /// <summary>Creates a generator from a 64-bit seed.</summary>
    public FuzzRng(ulong seed) => _state = seed;

    /// <summary>The generator of one input: independent of every other input, so any index replays on its own.</summary>
    public static FuzzRng ForInput(ulong seed, string target, long index)
    {
        ulong h = 14695981039346656037UL; // FNV-1a of the target name
        foreach (char c in target)
        {
            h = (h ^ c) * 1099511628211UL;
        }

        var mixer = new FuzzRng(seed ^ h);
        ulong a = mixer.NextUInt64();
        return new FuzzRng(a ^ ((ulong)index * 0xD1B54A32D192ED03UL));
    }

    /// <summary>The next 64 random bits.</summary>
    public ulong NextUInt64()
    {
        ulong z = _state += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    /// <summary>A number in [0, <paramref name="max"/>); 0 when <paramref name="max"/> is 0 or less.</summary>
    public int Next(int max) => max <= 0 ? 0 : (int)(NextUInt64() % (ulong)max);

    /// <summary>A number in [<paramref name="min"/>, <paramref name="max"/>).</summary>
    public int Next(int min, int max) => min + Next(max - min);

    /// <summary>True with probability 1/<paramref name="n"/>.</summary>
    public bool OneIn(int n) => Next(n) == 0;

    /// <summary>A random byte.</summary>
    public byte NextByte() => (byte)NextUInt64();

    /// <summary>One of <paramref name="choices"/>.</summary>
    public T Pick<T>(IReadOnlyList<T> choices) => choices[Next(choices.Count)];
}
