using System.Buffers;
using System.Text;
using DotNetty.Buffers;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Bytes in and out of an EmbeddedChannel, and frames as a peer writes and reads them.</summary>
internal static class Wire
{
    /// <summary>RFC 6455's sample key, and its accept value.</summary>
    public const string Key = "dGhlIHNhbXBsZSBub25jZQ==";

    public const string Accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

    /// <summary>A pooled buffer holding <paramref name="bytes"/> (tracked by the leak detector).</summary>
    public static IByteBuffer Buffer(ReadOnlySpan<byte> bytes)
    {
        IByteBuffer buffer = PooledByteBufferAllocator.Default.Buffer(Math.Max(1, bytes.Length));
        buffer.WriteBytes(bytes);
        return buffer;
    }

    /// <summary>Everything the channel wrote so far, each write released; asserts no write was empty.</summary>
    public static byte[] Outbound(EmbeddedChannel channel)
    {
        var all = new List<byte>();
        while (channel.ReadOutbound<object>() is { } message)
        {
            if (message is IByteBuffer buffer)
            {
                bool readable = buffer.IsReadable();
                all.AddRange(buffer.GetReadableSpan().ToArray());
                buffer.Release();
                Assert.True(readable, "The handler wrote an empty buffer.");
            }
            else
            {
                ReferenceCountUtil.Release(message);
                Assert.Fail($"The handler wrote a {message.GetType().Name}, not a buffer.");
            }
        }

        return [.. all];
    }

    public static string Ascii(byte[] bytes, int count) => Encoding.ASCII.GetString(bytes, 0, count);

    /// <summary>An upgrade request (with <see cref="Key"/>) and any extra header lines.</summary>
    public static byte[] Request(string path = "/ws", string extra = "") => Encoding.ASCII.GetBytes(
        $"GET {path} HTTP/1.1\r\nHost: example.com\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {Key}\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n");

    /// <summary>Decodes the frames in <paramref name="bytes"/> as the peer of <paramref name="writer"/> would (every
    /// rule applied, UTF-8 included).</summary>
    public static List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Frames(ReadOnlySpan<byte> bytes, WebSocketRole writer = WebSocketRole.Server)
    {
        var decoder = new FrameDecoder(writer == WebSocketRole.Server ? WebSocketRole.Client : WebSocketRole.Server);
        byte[] copy = bytes.ToArray();
        Span<byte> rest = copy;
        var frames = new List<(WebSocketOpcode, bool, byte[])>();
        while (!rest.IsEmpty)
        {
            OperationStatus status = decoder.ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out _);
            Assert.True(status == OperationStatus.Done, $"The output does not decode: {status} {decoder.Violation} after {frames.Count} frames.");
            frames.Add((header.Opcode, header.Fin, payload.ToArray()));
            rest = rest.Slice((int)header.FrameLength);
        }

        return frames;
    }
}
