using System.Text;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>The kinds of payload of Autobahn's 12.x/13.x cases: text (lorem-ish words with some non-ASCII), JSON,
/// HTML, and random (incompressible) binary.</summary>
public enum PayloadKind
{
    Text,
    Json,
    Html,
    Binary,
}

/// <summary>
/// Payloads like Autobahn's 12.x/13.x data sets, deterministic and distinct per message: message <c>i</c> of a size is
/// a slice of a corpus of its kind at an offset that moves with <c>i</c>, so both sides can make it again without
/// keeping it. Text slices are valid UTF-8 of exactly the size asked (a character cut at either end becomes spaces).
/// </summary>
public static class DeflateDataSets
{
    /// <summary>Autobahn's message sizes, 16 B to 128 KiB.</summary>
    public static readonly int[] Sizes = [16, 64, 256, 1024, 4096, 16 * 1024, 64 * 1024, 128 * 1024];

    /// <summary>Auto-fragmentation: the frame sizes a compressed message is split into (0: one frame).</summary>
    public static readonly int[] Fragments = [0, 256, 1024, 4096, 32 * 1024];

    /// <summary>Messages per case: 20 in CI, 1000 (Autobahn's count) with <c>WSC_DEFLATE_FULL=1</c>.</summary>
    public static int MessagesPerCase => Environment.GetEnvironmentVariable("WSC_DEFLATE_FULL") == "1" ? 1000 : 20;

    private const int CorpusLength = 512 * 1024;
    // Before the corpora, which use it in their initializers.
    private static readonly string[] Words =
        ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod", "tempor", "κόσμε", "grüße", "naïve", "日本語"];

    private static readonly byte[] TextCorpus = Build(i => Words[(i * 7 + (i >> 4)) % Words.Length] + ((i % 13) == 12 ? ".\n" : " "));
    private static readonly byte[] JsonCorpus = Build(i => $"{{\"id\":{i},\"user\":\"user{i % 97}\",\"online\":{(i % 3 == 0 ? "true" : "false")},\"score\":{i * 0.25},\"tags\":[\"t{i % 5}\",\"t{i % 11}\"]}},");
    private static readonly byte[] HtmlCorpus = Build(i => $"<tr class=\"row{i % 2}\"><td><a href=\"/item/{i}\">Item {i}</a></td><td>{Words[i % Words.Length]}</td><td><span class=\"price\">{i % 1000}.{i % 100:00}</span></td></tr>\n");
    private static readonly byte[] BinaryCorpus = RandomBytes();

    /// <summary>Message <paramref name="index"/> of <paramref name="size"/> bytes of <paramref name="kind"/>.</summary>
    public static byte[] Payload(PayloadKind kind, int size, int index)
    {
        byte[] corpus = kind switch
        {
            PayloadKind.Text => TextCorpus,
            PayloadKind.Json => JsonCorpus,
            PayloadKind.Html => HtmlCorpus,
            _ => BinaryCorpus,
        };
        int offset = (int)(((long)index * 7919 + size) % (corpus.Length - size));
        byte[] payload = corpus.AsSpan(offset, size).ToArray();
        if (kind is PayloadKind.Text or PayloadKind.Html)
        {
            WholeCharacters(payload);
        }

        return payload;
    }

    /// <summary>The opcode a payload of <paramref name="kind"/> goes in.</summary>
    public static WebSocketOpcode Opcode(PayloadKind kind) => kind == PayloadKind.Binary ? WebSocketOpcode.Binary : WebSocketOpcode.Text;

    private static void WholeCharacters(byte[] text)
    {
        for (int i = 0; i < text.Length && (text[i] & 0xC0) == 0x80; i++)
        {
            text[i] = (byte)' '; // the rest of a character cut at the start
        }

        for (int i = Math.Max(0, text.Length - 4); i < text.Length; i++)
        {
            int length = text[i] >= 0xF0 ? 4 : text[i] >= 0xE0 ? 3 : text[i] >= 0xC0 ? 2 : 1;
            if (i + length > text.Length)
            {
                text.AsSpan(i).Fill((byte)' '); // a character cut at the end
                break;
            }
        }
    }

    private static byte[] Build(Func<int, string> piece)
    {
        var text = new StringBuilder();
        for (int i = 0; text.Length < CorpusLength; i++)
        {
            text.Append(piece(i));
        }

        return Encoding.UTF8.GetBytes(text.ToString());
    }

    private static byte[] RandomBytes()
    {
        byte[] bytes = new byte[CorpusLength];
        new Random(12).NextBytes(bytes);
        return bytes;
    }
}
