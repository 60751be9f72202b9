using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seeded mutator: picks a corpus entry (sometimes spliced with another) and stacks 1 (half the time) to 6 mutations on it. The
/// byte-level ones serve every target; frame streams also get header-aware ones (lengths at the 125/126/127/65535/65536
/// boundaries in any encoding, opcode, RSV, FIN and mask-bit toggles, a mask key added or removed), text inputs a
/// dictionary of the tokens their grammar turns on. Everything comes from the given <see cref="FuzzRng"/>.
/// </summary>
public sealed class Mutator
{
    /// <summary>The byte values that sit at boundaries: 0x00, 0x7E/0x7F/0x80 (7-bit lengths and the mask bit), 0xFF.</summary>
    public static readonly byte[] InterestingBytes = [0x00, 0x01, 0x7D, 0x7E, 0x7F, 0x80, 0x81, 0xFE, 0xFF, 0x0D, 0x0A, 0x20];

    /// <summary>Payload lengths at encoding and limit boundaries.</summary>
    public static readonly ulong[] InterestingLengths =
        [0, 1, 2, 3, 124, 125, 126, 127, 128, 255, 256, 65534, 65535, 65536, 65537, 1UL << 24, (1UL << 24) + 1, (1UL << 63) - 1, 1UL << 63, ulong.MaxValue];

    private const int MaxInputLength = 256 * 1024;

    private readonly IReadOnlyList<CorpusEntry> _corpus;
    private readonly bool _frames;
    private readonly byte[][] _dictionary;

    /// <summary>Creates a mutator over <paramref name="corpus"/>.</summary>
    /// <param name="corpus">The seed entries.</param>
    /// <param name="frames">Whether inputs are frame streams (header-aware mutations) rather than text.</param>
    /// <param name="dictionary">Tokens to insert into text inputs.</param>
    public Mutator(IReadOnlyList<CorpusEntry> corpus, bool frames, IEnumerable<string>? dictionary = null)
    {
        if (corpus.Count == 0)
        {
            throw new ArgumentException("The corpus is empty.", nameof(corpus));
        }

        _corpus = corpus;
        _frames = frames;
        _dictionary = [.. (dictionary ?? []).Select(Encoding.Latin1.GetBytes)];
    }

    /// <summary>The seed entries.</summary>
    public IReadOnlyList<CorpusEntry> Corpus => _corpus;

    /// <summary>Makes one input: the entry it started from, and its bytes.</summary>
    public (CorpusEntry Entry, byte[] Bytes) Next(FuzzRng rng)
    {
        CorpusEntry entry = rng.Pick(_corpus);
        var bytes = new List<byte>(entry.Bytes);
        if (!rng.OneIn(20))
        {
            int count = rng.OneIn(2) ? 1 : 1 + rng.Next(1, 6); // half the inputs one mutation away from a seed
            for (int i = 0; i < count; i++)
            {
                MutateOnce(bytes, rng);
                if (bytes.Count > MaxInputLength)
                {
                    bytes.RemoveRange(MaxInputLength, bytes.Count - MaxInputLength);
                }
            }
        }

        return (entry, bytes.ToArray());
    }

    private void MutateOnce(List<byte> b, FuzzRng rng)
    {
        int kinds = _frames ? 13 : 11;
        switch (rng.Next(kinds))
        {
            case 0 when b.Count > 0:
                b[rng.Next(b.Count)] ^= (byte)(1 << rng.Next(8));
                break;
            case 1 when b.Count > 0:
                b[rng.Next(b.Count)] = rng.Pick(InterestingBytes);
                break;
            case 2 when b.Count > 0:
                b[rng.Next(b.Count)] = rng.NextByte();
                break;
            case 3:
            {
                int at = rng.Next(b.Count + 1);
                int n = 1 + rng.Next(rng.OneIn(8) ? 130 : 8);
                var insert = new byte[n];
                for (int i = 0; i < n; i++)
                {
                    insert[i] = rng.OneIn(2) ? rng.Pick(InterestingBytes) : rng.NextByte();
                }

                b.InsertRange(at, insert);
                break;
            }

            case 4 when b.Count > 0:
            {
                int at = rng.Next(b.Count);
                b.RemoveRange(at, 1 + rng.Next(Math.Min(b.Count - at, rng.OneIn(4) ? 64 : 8)));
                break;
            }

            case 5 when b.Count > 0:
            {
                int at = rng.Next(b.Count);
                int n = 1 + rng.Next(Math.Min(b.Count - at, 256));
                b.InsertRange(rng.Next(b.Count + 1), b.GetRange(at, n));
                break;
            }

            case 6:
            {
                // Splice: a prefix of this input, then a suffix of another entry.
                byte[] other = rng.Pick(_corpus).Bytes;
                int keep = rng.Next(b.Count + 1);
                int from = rng.Next(other.Length + 1);
                b.RemoveRange(keep, b.Count - keep);
                b.AddRange(other.AsSpan(from).ToArray());
                break;
            }

            case 7 when b.Count > 0:
                // Cut: mostly near the end (a frame or head cut short), sometimes anywhere.
                TruncateAt(b, rng.OneIn(2) ? b.Count - 1 - rng.Next(Math.Min(b.Count, 16)) : rng.Next(b.Count + 1));
                break;
            case 8:
                // Append a whole entry: streams of many frames, data after a Close, requests followed by frames.
                b.AddRange(rng.Pick(_corpus).Bytes);
                break;
            case 9 when !_frames && _dictionary.Length > 0:
            case 10 when !_frames && _dictionary.Length > 0:
            {
                byte[] token = _dictionary[rng.Next(_dictionary.Length)];
                int at = rng.Next(b.Count + 1);
                if (rng.OneIn(3) && at < b.Count)
                {
                    b.RemoveRange(at, Math.Min(b.Count - at, 1 + rng.Next(token.Length + 2)));
                }

                b.InsertRange(at, token);
                break;
            }

            case 9 when _frames:
                EditLength(b, rng);
                break;
            case 10 when _frames:
                ToggleHeaderBits(b, rng);
                break;
            case 11 when _frames:
                ToggleMaskKey(b, rng);
                break;
            case 12 when _frames:
                EditLength(b, rng);
                break;
            default:
                if (b.Count > 0)
                {
                    b[rng.Next(b.Count)] ^= 0xFF;
                }

                break;
        }
    }

    private static void TruncateAt(List<byte> b, int length)
    {
        if (length < b.Count)
        {
            b.RemoveRange(length, b.Count - length);
        }
    }

    private static int PickHeader(List<byte> b, FuzzRng rng)
    {
        List<int> offsets = FrameLayout.HeaderOffsets(b);
        return offsets.Count == 0 ? -1 : rng.Pick(offsets);
    }

    private static void EditLength(List<byte> b, FuzzRng rng)
    {
        int at = PickHeader(b, rng);
        if (at < 0)
        {
            return;
        }

        FrameLayout.HeaderLength(b, at, out long current);
        ulong length = rng.Next(4) switch
        {
            0 when current >= 0 => (ulong)Math.Max(0, current + rng.Next(-2, 3)),
            _ => rng.Pick(InterestingLengths),
        };
        // Mostly the minimal form, sometimes a longer one (non-minimal) or a shorter one (cut).
        int minimal = length <= 125 ? 0 : length <= 65535 ? 1 : 2;
        int form = rng.OneIn(4) ? rng.Next(3) : minimal;
        FrameLayout.SetLength(b, at, length, form);
    }

    private static void ToggleHeaderBits(List<byte> b, FuzzRng rng)
    {
        int at = PickHeader(b, rng);
        if (at < 0)
        {
            return;
        }

        switch (rng.Next(5))
        {
            case 0:
                b[at] = (byte)((b[at] & 0xF0) | rng.Next(16)); // any opcode
                break;
            case 1:
                b[at] = (byte)((b[at] & 0xF0) | rng.Pick(new byte[] { 0, 1, 2, 8, 9, 10 })); // a valid opcode
                break;
            case 2:
                b[at] ^= 0x80; // FIN
                break;
            case 3:
                b[at] ^= (byte)(0x10 << rng.Next(3)); // an RSV bit
                break;
            default:
                b[at + 1] ^= 0x80; // the mask bit alone: the key bytes become payload or the payload a key
                break;
        }
    }

    private static void ToggleMaskKey(List<byte> b, FuzzRng rng)
    {
        int at = PickHeader(b, rng);
        if (at < 0)
        {
            return;
        }

        int header = FrameLayout.HeaderLength(b, at, out _);
        bool masked = (b[at + 1] & 0x80) != 0;
        b[at + 1] ^= 0x80;
        int keyAt = at + header - (masked ? 4 : 0);
        if (masked)
        {
            if (keyAt + 4 <= b.Count)
            {
                b.RemoveRange(keyAt, 4);
            }
        }
        else if (keyAt <= b.Count)
        {
            b.InsertRange(keyAt, [rng.NextByte(), rng.NextByte(), rng.NextByte(), rng.NextByte()]);
        }
    }
}
