using System.Text;
using DotNetty.Buffers;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>
/// <see cref="Http2PriorKnowledgeDetector"/> on an embedded channel, where every read is exactly the bytes written: the
/// protocol is chosen on the byte that decides it and not before, the bytes read so far reach the chosen pipeline whole
/// (the first read's own buffer when it sufficed), junk and silence close the connection.
/// </summary>
public sealed class OnePortDetectorTests : LeakCheckedTests
{
    private static readonly byte[] Preface = Encoding.ASCII.GetBytes("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

    [Fact]
    public void APrefaceSplitByteByByteChoosesHttp2OnItsLastByteAndHandsOnAllOfIt()
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector());
        for (int i = 0; i < Preface.Length; i++)
        {
            Assert.Null(chosen.Protocol);
            channel.WriteInbound(Unpooled.CopiedBuffer(Preface, i, 1));
        }

        Assert.Equal("h2", chosen.Protocol);
        Assert.Null(channel.Pipeline.Get<Http2PriorKnowledgeDetector>());
        Assert.Equal(Preface, chosen.TakeBytes());
        Assert.True(channel.IsOpen);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AWholePrefaceWithFramesBehindIsHandedOnAsTheSameBuffer()
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector());
        byte[] settings = [0, 0, 0, 4, 0, 0, 0, 0, 0]; // an empty SETTINGS frame on stream 0
        IByteBuffer first = Unpooled.CopiedBuffer([.. Preface, .. settings]);
        channel.WriteInbound(first);

        Assert.Equal("h2", chosen.Protocol);
        Assert.Same(first, Assert.Single(chosen.Buffers)); // passed on, not copied
        Assert.Equal([.. Preface, .. settings], chosen.TakeBytes());
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Theory]
    [InlineData("GET / HTTP/1.1\r\nHost: a\r\n\r\n", 4)]
    [InlineData("PRI / HTTP/1.1\r\nHost: a\r\n\r\n", 5)] // the preface's first word, then a different request
    [InlineData("PRI * HTTP/1.1\r\nHost: a\r\n\r\n", 12)] // equal to the preface up to its version
    [InlineData("OPTIONS * HTTP/1.1\r\n\r\n", 8)]
    public void AnHttp1RequestIsChosenOnTheByteThatRulesOutThePreface(string request, int decidingLength)
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector());
        byte[] bytes = Encoding.ASCII.GetBytes(request);
        for (int i = 0; i < bytes.Length; i++)
        {
            Assert.Equal(i < decidingLength ? null : "http/1.1", chosen.Protocol);
            channel.WriteInbound(Unpooled.CopiedBuffer(bytes, i, 1));
        }

        Assert.Equal("http/1.1", chosen.Protocol);
        Assert.Equal(bytes, chosen.TakeBytes()); // the bytes before the decision and every read after it
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Theory]
    [InlineData(new byte[] { 0x16, 0x03, 0x01, 0x00, 0xA5 })] // a TLS ClientHello on the cleartext port
    [InlineData(new byte[] { (byte)' ', (byte)'G', (byte)'E', (byte)'T' })]
    [InlineData(new byte[] { (byte)'\r', (byte)'\n' })]
    [InlineData(new byte[] { (byte)'G', (byte)'E', (byte)'T', (byte)'\r' })]
    [InlineData(new byte[] { (byte)'P', (byte)'R', (byte)'I', 0 })]
    public void JunkClosesTheConnection(byte[] junk)
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector());
        channel.WriteInbound(Unpooled.CopiedBuffer(junk));
        Assert.Null(chosen.Protocol);
        Assert.False(channel.IsOpen);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void AMethodLongerThanAnyRealOneIsJunk()
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector());
        channel.WriteInbound(Unpooled.CopiedBuffer(Encoding.ASCII.GetBytes(new string('A', 20))));
        Assert.True(channel.IsOpen); // 20 letters may still be a method
        channel.WriteInbound(Unpooled.CopiedBuffer("A"u8.ToArray()));
        Assert.Null(chosen.Protocol);
        Assert.False(channel.IsOpen);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void APeerThatLeavesBeforeTellingLeavesNoBufferBehind()
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector());
        channel.WriteInbound(Unpooled.CopiedBuffer(Preface, 0, 10));
        channel.WriteInbound(Unpooled.CopiedBuffer(Preface, 10, 5));
        _ = channel.CloseAsync();
        Assert.Null(chosen.Protocol);
        Assert.False(channel.FinishAndReleaseAll()); // the gathered bytes were released (the leak check after says so)
    }

    [Fact]
    public void SilenceClosesTheConnectionAfterTheTimeout()
    {
        var chosen = new Chosen();
        var channel = new EmbeddedChannel(chosen.Detector(TimeSpan.FromMilliseconds(1)));
        channel.WriteInbound(Unpooled.CopiedBuffer(Preface, 0, 3));
        for (int i = 0; i < 1000 && channel.IsOpen; i++)
        {
            Thread.Sleep(1);
            channel.RunPendingTasks(); // the embedded loop runs scheduled tasks when asked
            channel.RunScheduledPendingTasks();
        }

        Assert.False(channel.IsOpen);
        Assert.Null(chosen.Protocol);
        Assert.False(channel.FinishAndReleaseAll());
    }

    [Fact]
    public void TheTimeoutMustBePositive() =>
        Assert.Throws<ArgumentOutOfRangeException>(() => new Http2PriorKnowledgeDetector(_ => { }, _ => { }, TimeSpan.Zero));

    /// <summary>Which pipeline the detector chose, and the buffers the chosen pipeline got.</summary>
    private sealed class Chosen : ChannelHandlerAdapter
    {
        public string? Protocol { get; private set; }

        public List<IByteBuffer> Buffers { get; } = [];

        public override bool IsSharable => true;

        public Http2PriorKnowledgeDetector Detector(TimeSpan? timeout = null) => new(
            pipeline => Choose(pipeline, "http/1.1"), pipeline => Choose(pipeline, "h2"), timeout);

        public override void ChannelRead(IChannelHandlerContext context, object message) => Buffers.Add((IByteBuffer)message);

        /// <summary>The bytes received, in order; the buffers are released.</summary>
        public byte[] TakeBytes()
        {
            var bytes = new List<byte>();
            foreach (IByteBuffer buffer in Buffers)
            {
                byte[] copy = new byte[buffer.ReadableBytes];
                buffer.GetBytes(buffer.ReaderIndex, copy);
                bytes.AddRange(copy);
                buffer.Release();
            }

            Buffers.Clear();
            return [.. bytes];
        }

        private void Choose(IChannelPipeline pipeline, string protocol)
        {
            Assert.Null(Protocol);
            Protocol = protocol;
            pipeline.AddLast("chosen", this);
        }
    }
}
