using System.Buffers;

namespace WebSocketCodec.Soak;

/// <summary>
/// One connection's messages, deterministic from (seed, segment, connection) and the message index. Sizes: 70% of
/// 0-125 B, 25% of 126-65,536 B, 5% of 65,537-70,000 B; every <c>boundaryEvery</c>-th message has one of the length
/// boundaries (<see cref="Boundaries"/>, in turn), and the other draws are weighted so the three shares stay 70/25/5.
/// Half the messages are text (random UTF-8 of 1-4 byte characters), half binary. 20% are sent in 2-5 fragments whose
/// cuts in text are moved inside a multi-byte character where one is near, with a Ping (8-125 bytes, unique) after a
/// fragment half the time.
/// </summary>
public sealed class SoakTraffic
{
    /// <summary>The largest message.</summary>
    public const int MaxLength = 70_000;

    /// <summary>The length boundaries of RFC 6455's three length encodings, ±1: 125/126/127 and 65535/65536.</summary>
    public static readonly int[] Boundaries = [124, 125, 126, 127, 128, 65_534, 65_535, 65_536, 65_537];

    private const double SmallShare = 0.70;
    private const double MediumShare = 0.25;
    private readonly SoakMaterial _material;
    private readonly int _connection;
    private readonly int _boundaryEvery;
    private readonly double _small;
    private readonly double _medium;
    private SoakRandom _random;
    private long _index;
    private long _pingSequence;

    /// <summary>The traffic of connection <paramref name="connection"/> in segment <paramref name="segment"/>.</summary>
    public SoakTraffic(SoakMaterial material, ulong seed, long segment, int connection, int boundaryEvery = 16)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(boundaryEvery, 2);
        _material = material;
        _connection = connection;
        _boundaryEvery = boundaryEvery;
        _random = new SoakRandom(SoakRandom.Derive(seed, segment, connection));
        // The boundary messages are 2/9 small, 6/9 medium, 1/9 large: weigh the other draws so the shares stay.
        double f = 1.0 / boundaryEvery;
        _small = (SmallShare - (f * 2 / 9)) / (1 - f);
        _medium = (MediumShare - (f * 6 / 9)) / (1 - f);
    }

    /// <summary>Which size class a length is in: 0 (0-125), 1 (126-65,536), 2 (above).</summary>
    public static int SizeClass(int length) => length <= 125 ? 0 : length <= 65_536 ? 1 : 2;

    /// <summary>The index of <paramref name="length"/> in <see cref="Boundaries"/>, or -1.</summary>
    public static int BoundaryIndex(int length) =>
        length is (>= 124 and <= 128) ? length - 124 : length is (>= 65_534 and <= 65_537) ? length - 65_534 + 5 : -1;

    /// <summary>The next message; its buffer is rented from <paramref name="pool"/>.</summary>
    public SoakMessage Next(ArrayPool<byte> pool)
    {
        ArgumentNullException.ThrowIfNull(pool);
        long index = _index++;
        int length;
        if (index % _boundaryEvery == _boundaryEvery - 1)
        {
            length = Boundaries[(int)(((index / _boundaryEvery) + _connection) % Boundaries.Length)];
        }
        else
        {
            double r = _random.NextDouble();
            length = r < _small ? _random.Next(0, 125) : r < _small + _medium ? _random.Next(126, 65_536) : _random.Next(65_537, MaxLength);
        }

        bool text = _random.Next(2) == 0;
        byte[] buffer = pool.Rent(Math.Max(1, length));
        int start = _random.Next(SoakMaterial.Starts);
        if (text)
        {
            FillText(buffer.AsSpan(0, length), start);
        }
        else
        {
            _material.Binary.AsSpan(start, length).CopyTo(buffer);
        }

        if (_random.Next(5) != 0)
        {
            return new SoakMessage(index, text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, buffer, length, [length], null, 0);
        }

        int fragments = _random.Next(2, 5);
        int[] ends = new int[fragments];
        int inside = 0;
        for (int i = 0; i < fragments - 1; i++)
        {
            int cut = _random.Next(0, length);
            if (text)
            {
                // Move the cut onto a continuation byte nearby: the character is then split between two frames.
                for (int probe = cut; probe < Math.Min(length, cut + 8); probe++)
                {
                    if (SoakMaterial.IsContinuation(buffer[probe]))
                    {
                        cut = probe;
                        break;
                    }
                }
            }

            ends[i] = cut;
        }

        ends[^1] = length;
        Array.Sort(ends);
        byte[]?[] pings = new byte[fragments - 1][];
        for (int i = 0; i < fragments - 1; i++)
        {
            if (text && ends[i] > 0 && ends[i] < length && SoakMaterial.IsContinuation(buffer[ends[i]]))
            {
                inside++;
            }

            if (_random.Next(2) == 0)
            {
                // Unique payloads (the sequence number first), so a Pong that answers several Pings names the latest.
                byte[] ping = new byte[_random.Next(8, 125)];
                BitConverter.TryWriteBytes(ping, _pingSequence++);
                _random.NextBytes(ping.AsSpan(8));
                pings[i] = ping;
            }
        }

        return new SoakMessage(index, text ? WebSocketOpcode.Text : WebSocketOpcode.Binary, buffer, length, ends, pings, inside);
    }

    /// <summary>Exactly <paramref name="target"/>.Length bytes of valid UTF-8: whole characters from the material, and
    /// ASCII for the last 0-3 bytes.</summary>
    private void FillText(Span<byte> target, int start)
    {
        byte[] source = _material.Text;
        while (SoakMaterial.IsContinuation(source[start]))
        {
            start++;
        }

        int end = start + target.Length;
        while (end > start && SoakMaterial.IsContinuation(source[end]))
        {
            end--;
        }

        source.AsSpan(start, end - start).CopyTo(target);
        for (int i = end - start; i < target.Length; i++)
        {
            target[i] = (byte)('a' + _random.Next(26));
        }
    }
}
