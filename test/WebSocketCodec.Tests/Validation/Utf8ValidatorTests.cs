using System.Text;
using System.Text.Unicode;

namespace WebSocketCodec.Tests.Validation;

public class Utf8ValidatorTests
{
    public static TheoryData<string, byte[], bool> Table => new()
    {
        { "empty", [], true },
        { "ASCII", "Hello, world"u8.ToArray(), true },
        { "kosme", "κόσμε"u8.ToArray(), true },
        { "U+0080", [0xC2, 0x80], true },
        { "U+07FF", [0xDF, 0xBF], true },
        { "U+0800", [0xE0, 0xA0, 0x80], true },
        { "U+FFFF (noncharacter)", [0xEF, 0xBF, 0xBF], true },
        { "U+FFFE (noncharacter)", [0xEF, 0xBF, 0xBE], true },
        { "U+FDD0 (noncharacter)", [0xEF, 0xB7, 0x90], true },
        { "U+1FFFE (noncharacter)", [0xF0, 0x9F, 0xBF, 0xBE], true },
        { "U+10000", [0xF0, 0x90, 0x80, 0x80], true },
        { "U+10FFFF", [0xF4, 0x8F, 0xBF, 0xBF], true },
        { "U+D7FF", [0xED, 0x9F, 0xBF], true },
        { "U+E000", [0xEE, 0x80, 0x80], true },
        { "overlong NUL C0 80", [0xC0, 0x80], false },
        { "overlong C1 BF", [0xC1, 0xBF], false },
        { "overlong 3-byte E0 80 80", [0xE0, 0x80, 0x80], false },
        { "overlong 3-byte E0 9F BF", [0xE0, 0x9F, 0xBF], false },
        { "overlong 4-byte F0 80 80 80", [0xF0, 0x80, 0x80, 0x80], false },
        { "overlong 4-byte F0 8F BF BF", [0xF0, 0x8F, 0xBF, 0xBF], false },
        { "surrogate D800", [0xED, 0xA0, 0x80], false },
        { "surrogate DFFF", [0xED, 0xBF, 0xBF], false },
        { "surrogate pair", [0xED, 0xA0, 0x80, 0xED, 0xB0, 0x80], false },
        { "above U+10FFFF", [0xF4, 0x90, 0x80, 0x80], false },
        { "F5 lead", [0xF5, 0x80, 0x80, 0x80], false },
        { "F8 lead", [0xF8, 0x88, 0x80, 0x80, 0x80], false },
        { "FF", [0x61, 0xFF], false },
        { "FE", [0xFE], false },
        { "lone continuation", [0x80], false },
        { "continuation after ASCII", [0x61, 0xBF, 0x62], false },
        { "2-byte lead then ASCII", [0xC2, 0x41], false },
        { "3-byte lead, bad third", [0xE2, 0x82, 0x41], false },
        { "4-byte lead, bad fourth", [0xF0, 0x9F, 0x98, 0x41], false },
        { "truncated 2-byte at end", [0x61, 0xC2], false },
        { "truncated 3-byte at end", [0x61, 0xE2, 0x82], false },
        { "truncated 4-byte at end", [0xF0, 0x9F, 0x98], false },
        { "Autobahn 6.3.1 tail", [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64], false },
    };

    [Theory]
    [MemberData(nameof(Table))]
    public void WholeBufferAgreesWithTheTableAndTheBcl(string name, byte[] bytes, bool valid)
    {
        Assert.NotNull(name);
        Assert.Equal(valid, Utf8.IsValid(bytes)); // the table itself, checked against an independent oracle
        var validator = new Utf8Validator();
        Assert.Equal(valid, validator.Append(bytes, isFinal: true));
    }

    [Theory]
    [MemberData(nameof(Table))]
    public void SplitAtEveryByteGivesTheSameVerdict(string name, byte[] bytes, bool valid)
    {
        Assert.NotNull(name);
        byte[] padded = [.. "ab"u8, .. bytes, .. "yz"u8]; // also with ASCII around it
        foreach (byte[] input in new[] { bytes, padded })
        {
            for (int split = 0; split <= input.Length; split++)
            {
                var validator = new Utf8Validator();
                bool result = validator.Append(input.AsSpan(0, split), isFinal: false)
                    && validator.Append(input.AsSpan(split), isFinal: true);
                Assert.True(valid == result, $"{name}: split at {split} of {input.Length} gave {result}");
            }
        }
    }

    [Theory]
    [MemberData(nameof(Table))]
    public void ByteByByteGivesTheSameVerdict(string name, byte[] bytes, bool valid)
    {
        Assert.NotNull(name);
        var validator = new Utf8Validator();
        bool result = true;
        for (int i = 0; i < bytes.Length && result; i++)
        {
            result = validator.Append(bytes.AsSpan(i, 1), isFinal: false);
        }

        result = result && validator.Append([], isFinal: true);
        Assert.Equal(valid, result);
    }

    [Theory]
    [InlineData(new byte[] { 0xE0 }, new byte[] { 0x80 })] // overlong: fails at the second byte
    [InlineData(new byte[] { 0xED }, new byte[] { 0xA0 })] // surrogate: fails at the second byte
    [InlineData(new byte[] { 0xF4 }, new byte[] { 0x90 })] // above U+10FFFF: fails at the second byte
    [InlineData(new byte[] { 0x61, 0xC2 }, new byte[] { 0x41 })] // lead then ASCII
    public void FailsAsSoonAsTheBytesCanNoLongerBeValid(byte[] first, byte[] second)
    {
        var validator = new Utf8Validator();
        Assert.True(validator.Append(first, isFinal: false));
        Assert.True(validator.HasPendingBytes);
        Assert.False(validator.Append(second, isFinal: false));
    }

    [Theory]
    [InlineData(new byte[] { 0xF5 })]
    [InlineData(new byte[] { 0xC0 })]
    [InlineData(new byte[] { 0xC1 })]
    [InlineData(new byte[] { 0x61, 0xFF })]
    [InlineData(new byte[] { 0xE0, 0x9F })] // cut overlong, caught inside the cut sequence
    [InlineData(new byte[] { 0xF0, 0x8F })]
    public void ImpossibleCutSequenceFailsBeforeTheMessageEnds(byte[] bytes)
    {
        var validator = new Utf8Validator();
        Assert.False(validator.Append(bytes, isFinal: false));
    }

    [Fact]
    public void ValidPrefixCarriesAtMostThreeBytes()
    {
        byte[] emoji = "😀"u8.ToArray(); // F0 9F 98 80
        var validator = new Utf8Validator();
        Assert.True(validator.Append(emoji.AsSpan(0, 3), isFinal: false));
        Assert.True(validator.HasPendingBytes);
        Assert.True(validator.Append(emoji.AsSpan(3), isFinal: false));
        Assert.False(validator.HasPendingBytes);
        Assert.True(validator.Append([], isFinal: true));
    }

    [Fact]
    public void ResetForgetsACutSequence()
    {
        var validator = new Utf8Validator();
        Assert.True(validator.Append([0xE2, 0x82], isFinal: false));
        validator.Reset();
        Assert.False(validator.HasPendingBytes);
        Assert.True(validator.Append("ok"u8, isFinal: true));
    }

    [Fact]
    public void RandomPiecesAgreeWithTheBclOnTheWhole()
    {
        var random = new Random(6455);
        string[] alphabet = ["a", "Z", " ", "é", "ß", "€", "中", "\uFFFE", "😀", "𐍈"];
        for (int iteration = 0; iteration < 3000; iteration++)
        {
            byte[] bytes;
            if (iteration % 3 == 0)
            {
                bytes = new byte[random.Next(0, 40)];
                random.NextBytes(bytes);
            }
            else
            {
                var text = new StringBuilder();
                for (int i = random.Next(0, 30); i > 0; i--)
                {
                    text.Append(alphabet[random.Next(alphabet.Length)]);
                }

                bytes = System.Text.Encoding.UTF8.GetBytes(text.ToString());
                if (iteration % 3 == 2 && bytes.Length > 0)
                {
                    bytes[random.Next(bytes.Length)] ^= (byte)(1 << random.Next(8)); // one flipped bit
                }
            }

            int[] cuts = [.. Enumerable.Range(0, random.Next(0, 5)).Select(_ => random.Next(0, bytes.Length + 1)).Order()];
            var validator = new Utf8Validator();
            bool result = true;
            int start = 0;
            foreach (int cut in cuts)
            {
                result = result && validator.Append(bytes.AsSpan(start, cut - start), isFinal: false);
                start = cut;
            }

            result = result && validator.Append(bytes.AsSpan(start), isFinal: true);
            Assert.True(Utf8.IsValid(bytes) == result, $"{Convert.ToHexString(bytes)} cut at [{string.Join(",", cuts)}]");
        }
    }
}
