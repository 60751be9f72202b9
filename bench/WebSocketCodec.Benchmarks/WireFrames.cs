using System.Buffers;

namespace WebSocketCodec.Benchmarks;

/// <summary>Builds the wire bytes the benchmarks feed to both codecs.</summary>
internal static class WireFrames
{
    /// <summary><paramref name="count"/> final binary frames of <paramref name="payloadLength"/> bytes each, masked
    /// (as a client sends them) or not (as a server does).</summary>
    public static byte[] Binary(int count, int payloadLength, bool masked)
    {
        var encoder = new FrameEncoder(masked ? WebSocketRole.Client : WebSocketRole.Server);
        var writer = new ArrayBufferWriter<byte>();
        byte[] payload = Payload(payloadLength);
        for (int i = 0; i < count; i++)
        {
            encoder.Write(writer, WebSocketOpcode.Binary, payload);
        }

        return writer.WrittenSpan.ToArray();
    }

    /// <summary>A deterministic payload.</summary>
    public static byte[] Payload(int length)
    {
        var payload = new byte[length];
        for (int i = 0; i < payload.Length; i++)
        {
            payload[i] = (byte)(i * 31 + 7);
        }

        return payload;
    }
}
