using System.Runtime.Intrinsics;
using WebSocketCodec;

// Prints which vector widths this process has, then checks WebSocketMask against RFC 6455 §5.3 computed byte by byte:
// every length up to 1,100 (each vector loop, its remainders and the 8-, 4- and 1-byte steps), every offset, in place
// and copying, and payloads masked in chunks cut at every few bytes. Exit code 0: every case matched; 1: a mismatch
// (printed).
Console.WriteLine($"widths 512={Vector512.IsHardwareAccelerated} 256={Vector256.IsHardwareAccelerated} 128={Vector128.IsHardwareAccelerated}");
int[] keys = [0x3D21FA37, unchecked((int)0xFF00A55A), 0x01020304, 0];
long cases = 0;
var random = new Random(6455);
foreach (int key in keys)
{
    for (int length = 0; length <= 1100; length++)
    {
        byte[] original = new byte[length];
        random.NextBytes(original);
        for (int offset = 0; offset < 4; offset++)
        {
            byte[] expected = Reference(original, key, offset);
            byte[] inPlace = (byte[])original.Clone();
            int next = WebSocketMask.Apply(inPlace, key, offset);
            Check(inPlace, expected, next, (offset + length) & 3, $"in place: key {key:X8} length {length} offset {offset}");

            byte[] copy = new byte[length];
            next = WebSocketMask.Apply(original, copy, key, offset);
            Check(copy, expected, next, (offset + length) & 3, $"copy: key {key:X8} length {length} offset {offset}");
            cases += 2;
        }

        // In chunks, carrying the offset: as a payload split over reads is unmasked.
        byte[] chunked = (byte[])original.Clone();
        int carried = 0;
        for (int start = 0, cut = 1; start < length; start += cut, cut = cut * 7 % 97 + 1)
        {
            int size = Math.Min(cut, length - start);
            carried = WebSocketMask.Apply(chunked.AsSpan(start, size), key, carried);
        }

        Check(chunked, Reference(original, key, 0), carried, length & 3, $"chunked: key {key:X8} length {length}");
        cases++;
    }
}

Console.WriteLine($"matched {cases} cases");
return 0;

// RFC 6455 §5.3 as written: octet i XOR key octet (i + offset) mod 4, the key's octets in wire order (little-endian).
static byte[] Reference(byte[] data, int key, int offset)
{
    byte[] result = new byte[data.Length];
    for (int i = 0; i < data.Length; i++)
    {
        result[i] = (byte)(data[i] ^ (byte)(key >> (8 * ((i + offset) & 3))));
    }

    return result;
}

static void Check(byte[] actual, byte[] expected, int next, int expectedNext, string what)
{
    int at = actual.AsSpan().CommonPrefixLength(expected);
    if (at < expected.Length || next != expectedNext)
    {
        Console.WriteLine($"mismatch {what}: first wrong byte {(at < expected.Length ? at : -1)}, next offset {next} (expected {expectedNext})");
        Environment.Exit(1);
    }
}
