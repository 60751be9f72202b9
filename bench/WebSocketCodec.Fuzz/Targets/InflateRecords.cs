namespace WebSocketCodec.Fuzz;

/// <summary>
/// How the <c>inflate</c> target reads its input: fragments, each a record of one flags byte (bit 7: the message's
/// final fragment; the other bits are ignored), a big-endian 16-bit length and that many bytes (fewer at the end of
/// the input). Any bytes read back as fragments, so every mutation is a fragment sequence.
/// </summary>
public static class InflateRecords
{
    /// <summary>Reads <paramref name="input"/> as fragments: (start, length, final).</summary>
    public static List<(int Start, int Length, bool Final)> Read(byte[] input)
    {
        ArgumentNullException.ThrowIfNull(input);
        var fragments = new List<(int, int, bool)>();
        int at = 0;
        while (at < input.Length)
        {
            bool final = (input[at] & 0x80) != 0;
            int length = at + 2 < input.Length ? (input[at + 1] << 8) | input[at + 2] : 0;
            int start = Math.Min(at + 3, input.Length);
            length = Math.Min(length, input.Length - start);
            fragments.Add((start, length, final));
            at = start + length;
        }

        return fragments;
    }

    /// <summary>Writes messages' payloads as records, each cut into fragments of at most <paramref name="fragment"/>
    /// bytes.</summary>
    public static byte[] Write(byte[][] messages, int fragment)
    {
        ArgumentNullException.ThrowIfNull(messages);
        var output = new List<byte>();
        foreach (byte[] message in messages)
        {
            int at = 0;
            do
            {
                int length = Math.Min(Math.Min(fragment, 65535), message.Length - at);
                bool final = at + length == message.Length;
                output.AddRange([(byte)(final ? 0x80 : 0), (byte)(length >> 8), (byte)length]);
                output.AddRange(message.AsSpan(at, length).ToArray());
                at += length;
            }
            while (at < message.Length);
        }

        return [.. output];
    }

    /// <summary>Writes literal fragments: each starts with its flags byte, then its bytes.</summary>
    public static byte[] WriteFragments(params byte[][] fragments)
    {
        ArgumentNullException.ThrowIfNull(fragments);
        var output = new List<byte>();
        foreach (byte[] fragment in fragments)
        {
            int length = fragment.Length - 1;
            output.AddRange([fragment[0], (byte)(length >> 8), (byte)length]);
            output.AddRange(fragment.AsSpan(1).ToArray());
        }

        return [.. output];
    }
}
