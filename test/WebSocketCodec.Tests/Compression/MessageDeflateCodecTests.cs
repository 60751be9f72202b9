using System.Buffers;
using System.IO.Compression;

namespace WebSocketCodec.Tests.Compression;

/// <summary>The permessage-deflate compressor and decompressor: RFC 7692 §7.2.3's examples, round trips with and
/// without context, empty messages, fragments down to single bytes, corrupt data and bombs.</summary>
public sealed class MessageDeflateCodecTests
{
    private const long NoLimit = long.MaxValue - 1;

    [Theory]
    [InlineData("f248cdc9c90700")] // §7.2.3.1: "Hello", compressed
    [InlineData("000500faff48656c6c6f00")] // §7.2.3.3: "Hello" in a stored block
    public void TheRfcsHelloExamplesInflate(string hex)
    {
        using var inflater = new MessageInflater(keepContext: true);
        Assert.Equal("Hello", Inflate(inflater, Convert.FromHexString(hex)));
    }

    [Fact]
    public void TheRfcsSecondHelloUsesTheFirstsContext()
    {
        using var inflater = new MessageInflater(keepContext: true);

        Assert.Equal("Hello", Inflate(inflater, Convert.FromHexString("f248cdc9c90700")));
        Assert.Equal("Hello", Inflate(inflater, Convert.FromHexString("f200110000"))); // §7.2.3.2: a back-reference into the first
    }

    [Fact]
    public void TheRfcsFragmentedHelloInflatesAcrossFragments()
    {
        using var inflater = new MessageInflater(keepContext: true);
        var output = new ArrayBufferWriter<byte>();
        long inflated = 0;

        Assert.True(inflater.Inflate(Convert.FromHexString("f248cd"), endOfMessage: false, output, NoLimit, ref inflated)); // §7.2.3.1, two fragments
        Assert.True(inflater.Inflate(Convert.FromHexString("c9c90700"), endOfMessage: true, output, NoLimit, ref inflated));

        Assert.Equal("Hello", System.Text.Encoding.ASCII.GetString(output.WrittenSpan));
    }

    [Fact]
    public void AnEmptyMessageIsOneZeroByteFirstAndAfterOthers()
    {
        using var deflater = new MessageDeflater(CompressionLevel.Fastest, keepContext: true);
        using var inflater = new MessageInflater(keepContext: true);

        foreach (string text in new[] { "", "some text", "", "", "more text", "" })
        {
            byte[] compressed = Compress(deflater, System.Text.Encoding.UTF8.GetBytes(text));
            if (text.Length == 0)
            {
                Assert.Equal(new byte[] { 0x00 }, compressed);
            }

            Assert.Equal(text, Inflate(inflater, compressed));
        }
    }

    [Theory]
    [InlineData(true, true)]
    [InlineData(false, false)]
    [InlineData(true, false)] // the decompressor may keep context when the compressor does not: harmless
    public void MessagesRoundTripInOrder(bool compressorKeepsContext, bool decompressorKeepsContext)
    {
        using var deflater = new MessageDeflater(CompressionLevel.Fastest, compressorKeepsContext);
        using var inflater = new MessageInflater(decompressorKeepsContext || compressorKeepsContext);
        var random = new Random(25);

        foreach (int length in new[] { 1, 16, 125, 126, 1000, 65535, 65536, 200_000 })
        {
            byte[] message = Json(length, random);
            byte[] compressed = Compress(deflater, message);
            Assert.False(compressed.AsSpan().EndsWith(DeflateTail.Bytes), "the tail is stripped");
            Assert.Equal(message, InflateBytes(inflater, compressed, fragments: 1 + (length % 7)));
        }
    }

    [Fact]
    public void WithContextARepeatedMessageCompressesToAFewBytes()
    {
        using var deflater = new MessageDeflater(CompressionLevel.Fastest, keepContext: true);
        byte[] message = Json(1024, new Random(1));

        int first = Compress(deflater, message).Length;
        int second = Compress(deflater, message).Length;

        Assert.True(first < message.Length / 2, $"{first} bytes for 1 KiB of JSON");
        Assert.True(second < 64 && second < first / 4, $"{second} bytes for a repeat (back-references of at most 258 bytes each), {first} the first time");
    }

    [Fact]
    public void TheDecompressorGoesOnAfterItsSourceRanDryAtEveryByte()
    {
        // DeflateStream reads 0 from its source at the end of each fragment and must take the next fragment after it.
        using var deflater = new MessageDeflater(CompressionLevel.Optimal, keepContext: true);
        using var inflater = new MessageInflater(keepContext: true);
        byte[] message = Json(5000, new Random(2));
        byte[] compressed = Compress(deflater, message);

        Assert.Equal(message, InflateBytes(inflater, compressed, fragments: compressed.Length));
    }

    [Fact]
    public void CorruptDataThrowsInvalidDataException()
    {
        using var inflater = new MessageInflater(keepContext: true);
        var output = new ArrayBufferWriter<byte>();
        long inflated = 0;

        Assert.Throws<InvalidDataException>(() => inflater.Inflate([0xFF, 0xFF, 0xFF, 0xFF, 0xFF], endOfMessage: true, output, NoLimit, ref inflated));
    }

    [Theory]
    [InlineData(32 * 1024 * 1024, 64 * 1024)] // a ~32 KiB message that inflates to 32 MiB, limit 64 KiB
    [InlineData(1024 * 1024, 64 * 1024)] // a ~1 KiB message that inflates to 1 MiB
    public void ABombStopsJustPastTheLimitOverAHundredFragments(int inflatedLength, int limit)
    {
        byte[] bomb = Bomb(inflatedLength);
        using var inflater = new MessageInflater(keepContext: true);
        var output = new ArrayBufferWriter<byte>();
        long inflated = 0;
        bool within = true;
        int fragment = (bomb.Length + 99) / 100;
        for (int offset = 0; offset < bomb.Length && within; offset += fragment)
        {
            ReadOnlySpan<byte> part = bomb.AsSpan(offset, Math.Min(fragment, bomb.Length - offset));
            within = inflater.Inflate(part, offset + part.Length == bomb.Length, output, limit, ref inflated);
        }

        Assert.False(within);
        Assert.InRange(inflated, limit + 1, limit + 16 * 1024); // the limit plus at most one chunk
        Assert.InRange(output.WrittenCount, limit + 1, limit + 16 * 1024);
    }

    [Theory]
    [InlineData(long.MaxValue)] // "no limit": limit - inflated + 1 must not overflow
    [InlineData(long.MaxValue - 1)]
    [InlineData(1024 * 1024)] // exactly the message's length is within
    public void AMessageUpToTheLimitInflatesWhole(long limit)
    {
        byte[] compressed = Bomb(1024 * 1024);
        using var inflater = new MessageInflater(keepContext: true);
        var output = new ArrayBufferWriter<byte>();
        long inflated = 0;

        Assert.True(inflater.Inflate(compressed, endOfMessage: true, output, limit, ref inflated));
        Assert.Equal(1024 * 1024, inflated);
        Assert.Equal(1024 * 1024, output.WrittenCount);
    }

    private static byte[] Bomb(int inflatedLength)
    {
        var compressed = new ArrayBufferWriter<byte>();
        using (var deflater = new MessageDeflater(CompressionLevel.SmallestSize, keepContext: false))
        {
            deflater.Compress(new byte[inflatedLength], compressed);
        }

        return compressed.WrittenSpan.ToArray();
    }

    private static byte[] Compress(MessageDeflater deflater, byte[] message)
    {
        var output = new ArrayBufferWriter<byte>();
        long length = deflater.Compress(message, output);
        Assert.Equal(output.WrittenCount, length);
        return output.WrittenSpan.ToArray();
    }

    private static string Inflate(MessageInflater inflater, byte[] compressed) =>
        System.Text.Encoding.UTF8.GetString(InflateBytes(inflater, compressed, fragments: 1));

    private static byte[] InflateBytes(MessageInflater inflater, byte[] compressed, int fragments)
    {
        var output = new ArrayBufferWriter<byte>();
        long inflated = 0;
        int size = Math.Max(1, (compressed.Length + fragments - 1) / fragments);
        int offset = 0;
        do
        {
            int length = Math.Min(size, compressed.Length - offset);
            Assert.True(inflater.Inflate(compressed.AsSpan(offset, length), offset + length == compressed.Length, output, NoLimit, ref inflated));
            offset += length;
        }
        while (offset < compressed.Length);

        return output.WrittenSpan.ToArray();
    }

    private static byte[] Json(int length, Random random)
    {
        var text = new System.Text.StringBuilder();
        while (text.Length < length)
        {
            text.Append(System.Globalization.CultureInfo.InvariantCulture, $"{{\"id\":{random.Next(1000)},\"name\":\"user{random.Next(50)}\",\"online\":true}},");
        }

        return System.Text.Encoding.UTF8.GetBytes(text.ToString(0, length));
    }
}
