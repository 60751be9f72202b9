using System.Collections.Concurrent;
using System.IO.Compression;
using WebSocketCodec.Bench;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// The deflate load's messages: <see cref="Count"/> different JSON texts of one length (records with different values,
/// see <see cref="JsonPayload"/>), each compressed once, with no context (raw DEFLATE, sync flush, <c>00 00 FF FF</c>
/// removed: RFC 7692 §7.2.1), framed as a client's final masked text frame with RSV1, back to back. Enough different
/// messages (at least 128 KiB of JSON, four 15-bit windows) that a server keeping its context meets no verbatim copy
/// of a message within its window, as with real traffic; the first <c>window</c> frames are repeated at the end so
/// that any run of up to a window's frames is one contiguous write. Built once per payload length and process and
/// shared, read-only, by every connection.
/// </summary>
internal sealed class CompressedFrames
{
    private static readonly ConcurrentDictionary<(int Payload, int Window), CompressedFrames> Cache = new();

    private CompressedFrames(int payload, int window, ReadOnlySpan<byte> maskKey)
    {
        Count = Math.Clamp((128 * 1024) / payload, window, 4096);
        byte[][] frames = new byte[Count][];
        for (int i = 0; i < Count; i++)
        {
            frames[i] = Frame(Compress(JsonPayload.Create(payload, seed: i)), maskKey);
        }

        Offsets = new int[Count + window + 1];
        var wire = new MemoryStream();
        for (int i = 0; i < Count + window; i++)
        {
            Offsets[i] = (int)wire.Length;
            wire.Write(frames[i % Count]);
        }

        Offsets[^1] = (int)wire.Length;
        Wire = wire.ToArray();
        AverageFrameLength = Offsets[Count] / (double)Count;
    }

    /// <summary>How many different messages.</summary>
    public int Count { get; }

    /// <summary>The frames, then the first window's frames again.</summary>
    public byte[] Wire { get; }

    /// <summary>Where frame <c>i</c> starts in <see cref="Wire"/> (and one past the last frame).</summary>
    public int[] Offsets { get; }

    /// <summary>The mean wire length of a message's frame (header, key, compressed payload).</summary>
    public double AverageFrameLength { get; }

    public static CompressedFrames For(int payload, int window, ReadOnlySpan<byte> maskKey)
    {
        byte[] key = maskKey.ToArray();
        return Cache.GetOrAdd((payload, window), k => new CompressedFrames(k.Payload, k.Window, key));
    }

    private static byte[] Compress(byte[] message)
    {
        var output = new MemoryStream();
        using (var deflate = new DeflateStream(output, CompressionLevel.Optimal, leaveOpen: true))
        {
            deflate.Write(message);
            deflate.Flush();
        }

        // Disposing wrote a final empty block after the flush: keep what the flush gave, less its tail.
        byte[] all = output.ToArray();
        int end = all.AsSpan().LastIndexOf(new byte[] { 0x00, 0x00, 0xFF, 0xFF });
        if (end < 0)
        {
            throw new InvalidOperationException("A sync flush did not end with 00 00 FF FF.");
        }

        return all[..end];
    }

    private static byte[] Frame(byte[] payload, ReadOnlySpan<byte> maskKey)
    {
        int header = 2 + (payload.Length > 125 ? 2 : 0);
        byte[] frame = new byte[header + 4 + payload.Length];
        frame[0] = 0xC1; // FIN, RSV1, text
        if (payload.Length > 125)
        {
            frame[1] = 0x80 | 126;
            System.Buffers.Binary.BinaryPrimitives.WriteUInt16BigEndian(frame.AsSpan(2), checked((ushort)payload.Length));
        }
        else
        {
            frame[1] = (byte)(0x80 | payload.Length);
        }

        maskKey.CopyTo(frame.AsSpan(header));
        for (int b = 0; b < payload.Length; b++)
        {
            frame[header + 4 + b] = (byte)(payload[b] ^ maskKey[b & 3]);
        }

        return frame;
    }
}
