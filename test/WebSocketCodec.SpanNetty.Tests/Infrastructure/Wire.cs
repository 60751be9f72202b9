using System.Text;
using DotNetty.Buffers;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Bytes in and out of an EmbeddedChannel.</summary>
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
}
