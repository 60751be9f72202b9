namespace WebSocketCodec.Testing;

/// <summary>
/// A byte stream whose every byte is a function of its position, so a receiver checks what arrived byte for byte without
/// keeping a copy: a lost, repeated, reordered or corrupted chunk shows at its first wrong byte. The function is a
/// multiplicative hash of the position, so no chunk size or period makes two parts of the stream look alike.
/// </summary>
public static class StreamPattern
{
    /// <summary>The byte at <paramref name="position"/> of the stream.</summary>
    public static byte At(long position) => (byte)(((ulong)position + 1) * 0x9E3779B97F4A7C15UL >> 56);

    /// <summary>Writes the stream's bytes from <paramref name="position"/> on into <paramref name="destination"/>.</summary>
    public static void Fill(Span<byte> destination, long position)
    {
        for (int i = 0; i < destination.Length; i++)
        {
            destination[i] = At(position + i);
        }
    }

    /// <summary>The index in <paramref name="received"/> of its first byte that is not the stream's byte at
    /// <paramref name="position"/> plus that index, or -1 when every byte is right.</summary>
    public static int Mismatch(ReadOnlySpan<byte> received, long position)
    {
        for (int i = 0; i < received.Length; i++)
        {
            if (received[i] != At(position + i))
            {
                return i;
            }
        }

        return -1;
    }
}
