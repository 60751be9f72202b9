namespace WebSocketCodec.Tests.Masking;

public class MaskingTests
{
    private static readonly int[] Keys = [0x3D21FA37, unchecked((int)0xFF00A55A), 0x01020304, 0];

    /// <summary>RFC 6455 §5.3 as written: octet i XOR key octet (i + offset) mod 4, key octets in wire order.</summary>
    private static byte[] Reference(byte[] data, int key, int offset)
    {
        byte[] keyBytes = BitConverter.GetBytes(key); // little-endian: wire order of the key octets
        byte[] result = (byte[])data.Clone();
        for (int i = 0; i < result.Length; i++)
        {
            result[i] ^= keyBytes[(i + offset) % 4];
        }

        return result;
    }

    private static byte[] Data(int length, int seed)
    {
        var data = new byte[length];
        new Random(seed).NextBytes(data);
        return data;
    }

    [Fact]
    public void InPlaceMatchesTheReferenceForEveryLengthAndOffset()
    {
        foreach (int key in Keys)
        {
            for (int length = 0; length <= 1024; length++)
            {
                byte[] original = Data(length, length);
                for (int offset = 0; offset < 4; offset++)
                {
                    byte[] data = (byte[])original.Clone();
                    int next = WebSocketMask.Apply(data, key, offset);
                    Assert.Equal((offset + length) % 4, next);
                    Assert.True(Reference(original, key, offset).AsSpan().SequenceEqual(data), $"key {key:X8} length {length} offset {offset}");
                }
            }
        }
    }

    [Fact]
    public void CopyMatchesTheReferenceAndLeavesTheSourceAlone()
    {
        for (int length = 0; length <= 1024; length += 7)
        {
            byte[] source = Data(length, length + 1);
            byte[] before = (byte[])source.Clone();
            for (int offset = 0; offset < 4; offset++)
            {
                byte[] destination = new byte[length + 5];
                int next = WebSocketMask.Apply(source, destination, Keys[0], offset);
                Assert.Equal((offset + length) % 4, next);
                Assert.Equal(Reference(source, Keys[0], offset), destination[..length]);
                Assert.All(destination[length..], b => Assert.Equal(0, b));
                Assert.Equal(before, source);
            }
        }
    }

    [Fact]
    public void MaskingTwiceRestoresTheData()
    {
        byte[] original = Data(70000, 3);
        byte[] data = (byte[])original.Clone();
        WebSocketMask.Apply(data, Keys[1]);
        Assert.NotEqual(original, data);
        WebSocketMask.Apply(data, Keys[1]);
        Assert.Equal(original, data);
    }

    [Fact]
    public void ChunkedMaskingResumesTheKeyRotation()
    {
        var random = new Random(17);
        byte[] original = Data(1000, 5);
        byte[] whole = Reference(original, Keys[0], 0);
        for (int run = 0; run < 200; run++)
        {
            byte[] data = (byte[])original.Clone();
            int offset = 0;
            for (int start = 0; start < data.Length;)
            {
                int count = Math.Min(random.Next(0, 70), data.Length - start);
                offset = WebSocketMask.Apply(data.AsSpan(start, count), Keys[0], offset);
                start += count;
            }

            Assert.Equal(whole, data);
        }
    }

    [Theory]
    [InlineData(15)]
    [InlineData(16)]
    [InlineData(17)]
    [InlineData(31)]
    [InlineData(32)]
    [InlineData(33)]
    [InlineData(63)]
    [InlineData(64)]
    [InlineData(65)]
    [InlineData(127)]
    [InlineData(128)]
    [InlineData(255)]
    [InlineData(256)]
    [InlineData(257)]
    [InlineData(4099)]
    public void UnalignedStartsMatchTheReference(int length)
    {
        for (int start = 1; start < 64; start++)
        {
            byte[] buffer = Data(length + 128, start);
            byte[] expected = (byte[])buffer.Clone();
            Reference(buffer[start..(start + length)], Keys[0], 2).CopyTo(expected, start);
            WebSocketMask.Apply(buffer.AsSpan(start, length), Keys[0], 2);
            Assert.Equal(expected, buffer); // and nothing outside the slice changed
        }
    }

    [Fact]
    public void ShortDestinationIsRefused()
    {
        Assert.Throws<ArgumentException>(() => WebSocketMask.Apply(new byte[10], new byte[9], Keys[0]));
    }

    [Fact]
    public void GeneratedKeysAreUnpredictableAcrossRefills()
    {
        var generator = new MaskKeyGenerator();
        var keys = Enumerable.Range(0, 10_000).Select(_ => generator.Next()).ToArray();
        Assert.True(keys.Distinct().Count() > 9_990, "keys repeat far more than random 32-bit values would");
        Assert.True(MaskKeyGenerator.ForCurrentThread.Next() != MaskKeyGenerator.ForCurrentThread.Next()
            || MaskKeyGenerator.ForCurrentThread.Next() != MaskKeyGenerator.ForCurrentThread.Next());
        Assert.Throws<ArgumentOutOfRangeException>(() => new MaskKeyGenerator(6));
    }
}
