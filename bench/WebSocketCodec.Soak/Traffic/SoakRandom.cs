namespace WebSocketCodec.Soak;

/// <summary>A small, fast, seeded generator (xoshiro256**, seeded through SplitMix64): the same seed gives the same
/// traffic on every machine and runtime, which <see cref="System.Random"/> does not promise.</summary>
public struct SoakRandom
{
    private ulong _s0;
    private ulong _s1;
    private ulong _s2;
    private ulong _s3;

    /// <summary>A generator for <paramref name="seed"/>.</summary>
    public SoakRandom(ulong seed)
    {
        ulong x = seed;
        _s0 = SplitMix(ref x);
        _s1 = SplitMix(ref x);
        _s2 = SplitMix(ref x);
        _s3 = SplitMix(ref x);
    }

    /// <summary>A seed derived from several numbers (the run's seed, a segment, a connection).</summary>
    public static ulong Derive(ulong seed, long a, long b)
    {
        ulong x = seed ^ 0x9E3779B97F4A7C15UL;
        ulong h = SplitMix(ref x);
        x = h ^ (ulong)a;
        h = SplitMix(ref x);
        x = h ^ (ulong)b;
        return SplitMix(ref x);
    }

    /// <summary>The next 64 random bits.</summary>
    public ulong NextUInt64()
    {
        ulong result = ulong.RotateLeft(_s1 * 5, 7) * 9;
        ulong t = _s1 << 17;
        _s2 ^= _s0;
        _s3 ^= _s1;
        _s1 ^= _s2;
        _s0 ^= _s3;
        _s2 ^= t;
        _s3 = ulong.RotateLeft(_s3, 45);
        return result;
    }

    /// <summary>A number in [0, <paramref name="maxExclusive"/>).</summary>
    public int Next(int maxExclusive) => (int)(((NextUInt64() >> 32) * (ulong)maxExclusive) >> 32);

    /// <summary>A number in [<paramref name="min"/>, <paramref name="maxInclusive"/>].</summary>
    public int Next(int min, int maxInclusive) => min + Next(maxInclusive - min + 1);

    /// <summary>A number in [0, 1).</summary>
    public double NextDouble() => (NextUInt64() >> 11) * (1.0 / (1UL << 53));

    /// <summary>Fills <paramref name="bytes"/> with random bytes.</summary>
    public void NextBytes(Span<byte> bytes)
    {
        for (int i = 0; i < bytes.Length; i++)
        {
            bytes[i] = (byte)(NextUInt64() >> 56);
        }
    }

    private static ulong SplitMix(ref ulong x)
    {
        ulong z = x += 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }
}
