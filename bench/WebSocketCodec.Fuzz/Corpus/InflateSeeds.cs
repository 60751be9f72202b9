using System.IO.Compression;
using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The seeds of the <c>inflate</c> target: permessage-deflate messages as a peer sends them, written as
/// <see cref="InflateRecords"/> (one record a fragment). Most are made here by System.IO.Compression's raw deflate
/// with a sync flush after each message and its <c>00 00 FF FF</c> tail stripped (RFC 7692 §7.2.1), with one
/// compressor for all the messages of a seed (context kept) or one each; the others are the RFC 7692 §7.2.3 examples
/// byte for byte. <see cref="Expected"/> holds the messages each seed was made from.
/// </summary>
public static class InflateSeeds
{
    private static readonly Dictionary<string, (byte[][] Messages, bool SharedContext)> Messages = [];

    /// <summary>Every seed.</summary>
    public static IReadOnlyList<CorpusEntry> All { get; } = Build();

    /// <summary>The messages seed <paramref name="name"/> was made from, and whether they share one compression
    /// context (then only an inflater that keeps context reads them back).</summary>
    public static bool TryGetExpected(string name, out byte[][] messages, out bool sharedContext)
    {
        bool found = Messages.TryGetValue(name, out var value);
        (messages, sharedContext) = found ? value : ([], false);
        return found;
    }

    private static List<CorpusEntry> Build()
    {
        var entries = new List<CorpusEntry>();
        byte[] hello = Encoding.ASCII.GetBytes("Hello");
        void Add(string name, byte[][] messages, bool shared, CompressionLevel level = CompressionLevel.Optimal, int fragment = int.MaxValue)
        {
            byte[][] compressed = shared ? CompressShared(messages, level) : [.. messages.Select(m => CompressShared([m], level)[0])];
            entries.Add(new(name, InflateRecords.Write(compressed, fragment)));
            Messages[name] = (messages, shared);
        }

        void Literal(string name, byte[][] messages, bool shared, params byte[][] fragments)
        {
            entries.Add(new(name, InflateRecords.WriteFragments(fragments)));
            Messages[name] = (messages, shared);
        }

        // RFC 7692 §7.2.3.1-7.2.3.4: "Hello", fragmented, twice sharing the window, a stored block, BFINAL set.
        Literal("rfc-hello", [hello], false, [0x80, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00]);
        Literal("rfc-hello-fragmented", [hello], false, [0x00, 0xF2, 0x48], [0x80, 0xCD, 0xC9, 0xC9, 0x07, 0x00]);
        Literal("rfc-hello-twice-shared", [hello, hello], true, [0x80, 0xF2, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00], [0x80, 0xF2, 0x00, 0x11, 0x00, 0x01, 0x00]);
        Literal("rfc-hello-stored", [hello], false, [0x80, 0x00, 0x05, 0x00, 0xFA, 0xFF, 0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x00]);
        Literal("rfc-hello-bfinal", [hello], false, [0x80, 0xF3, 0x48, 0xCD, 0xC9, 0xC9, 0x07, 0x00, 0x00]);

        Add("empty", [[]], shared: false);
        Add("text", [Encoding.UTF8.GetBytes("The quick brown fox jumps over the lazy dog, caf\u00E9 \u2603.")], shared: false);
        Add("repetitive-1000", [Encoding.ASCII.GetBytes(new string('a', 1000))], shared: false, CompressionLevel.Fastest);
        Add("noise-300", [Noise(300, 7)], shared: false, CompressionLevel.NoCompression);
        Add("json-fragmented", [Encoding.ASCII.GetBytes(string.Concat(Enumerable.Range(0, 40).Select(i => $"{{\"id\":{i},\"name\":\"item{i}\"}},")))], shared: false, fragment: 23);
        Add("three-shared", [hello, Encoding.ASCII.GetBytes("Hello, Hello, Hello"), hello], shared: true);
        Add("three-separate", [hello, Encoding.ASCII.GetBytes("world"), []], shared: false);
        Add("bomb-64k", [new byte[64 * 1024]], shared: false, CompressionLevel.SmallestSize);
        Add("mixed-20k", [[.. Noise(4000, 3), .. new byte[16 * 1024]]], shared: false, CompressionLevel.Fastest, fragment: 1500);
        return entries;
    }

    /// <summary>One raw deflate compressor for all <paramref name="messages"/>: each is written then sync-flushed, and
    /// what the flush added, minus the tail, is that message's payload.</summary>
    private static byte[][] CompressShared(byte[][] messages, CompressionLevel level)
    {
        var output = new MemoryStream();
        var result = new byte[messages.Length][];
        using (var deflate = new DeflateStream(output, level, leaveOpen: true))
        {
            long start = 0;
            for (int i = 0; i < messages.Length; i++)
            {
                deflate.Write(messages[i]);
                deflate.Flush(); // a sync flush: ends in 00 00 FF FF
                byte[] all = output.ToArray();
                byte[] flushed = all[(int)start..];
                // A flush with nothing new to compress writes nothing: the message is then empty, as is an empty
                // stored block's payload once its tail is stripped.
                if (flushed.Length != 0 && (flushed.Length < 4 || !flushed.AsSpan(flushed.Length - 4).SequenceEqual((byte[])[0x00, 0x00, 0xFF, 0xFF])))
                {
                    throw new InvalidOperationException("a sync flush did not end with 00 00 FF FF");
                }

                result[i] = flushed.Length == 0 ? [] : flushed[..^4];
                start = all.Length;
            }
        }

        return result;
    }

    private static byte[] Noise(int length, ulong seed)
    {
        var rng = new FuzzRng(seed);
        var bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = rng.NextByte();
        }

        return bytes;
    }
}
