using DotNetty.Buffers;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Tls;

/// <summary>The network side of <see cref="SslStreamHandler"/>: what the SslStream writes between two flushes leaves as
/// one buffer, byte for byte, however its records fill that buffer.</summary>
public sealed class ChannelStreamTests : LeakCheckedTests
{
    // SpanNetty 0.7.2012.2221's WriteBytes(ReadOnlySpan) checks the writer index against the capacity before it grows
    // the buffer, so a record written into an exactly full buffer threw, and the connection closed mid-stream (seen over
    // HTTP/2 with TLS at 1000-byte frames, in about one run in five). The output buffer starts at 16,640 bytes and grows
    // by powers of two; each case fills it to one of those sizes exactly, then writes one more record.
    [Theory]
    [InlineData(16 * 1024 + 256)]
    [InlineData(32 * 1024)]
    [InlineData(64 * 1024)]
    [InlineData(128 * 1024)]
    public async Task WritesThatFillTheOutputBufferExactlyAreFollowedByMore(int filled)
    {
        var context = new ContextCapture();
        var channel = new EmbeddedChannel(context);
        var stream = new ChannelStream(context.Context!);
        var expected = new List<byte>();
        int written = 0;
        int record = 0;
        while (written < filled)
        {
            byte[] bytes = Record(Math.Min(1000, filled - written), record++);
            await stream.WriteAsync(bytes);
            expected.AddRange(bytes);
            written += bytes.Length;
        }

        byte[] next = Record(29, record);
        await stream.WriteAsync(next); // the write that found the buffer full
        expected.AddRange(next);

        Assert.NotNull(stream.WritePending());
        channel.Flush();
        var output = channel.ReadOutbound<IByteBuffer>();
        try
        {
            Assert.Equal(expected.ToArray(), ByteBufferUtil.GetBytes(output));
            Assert.Null(stream.WritePending()); // nothing left behind
        }
        finally
        {
            output.Release();
            await channel.CloseAsync();
        }
    }

    private static byte[] Record(int length, int index)
    {
        var bytes = new byte[length];
        for (int i = 0; i < bytes.Length; i++)
        {
            bytes[i] = (byte)(index * 31 + i);
        }

        return bytes;
    }

    private sealed class ContextCapture : ChannelHandlerAdapter
    {
        public IChannelHandlerContext? Context { get; private set; }

        public override void HandlerAdded(IChannelHandlerContext context) => Context = context;
    }
}
