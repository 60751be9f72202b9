using System.Buffers;
using System.IO.Compression;

namespace WebSocketCodec.Tests.Compression;

/// <summary>A session with permessage-deflate on inflates compressed messages before its handler sees them, bounds
/// them, and fails bad ones with the right close status; without it, a compressed frame is a 1002.</summary>
public sealed class SessionInflateTests
{
    private static readonly byte[] Hello = Convert.FromHexString("f248cdc9c90700"); // RFC 7692 §7.2.3.1

    private readonly struct Recorder(List<(WebSocketOpcode Opcode, bool Fin, int Rsv, byte[] Payload)> frames) : IFrameHandler
    {
        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            frames.Add((opcode, fin, rsv, payload.ToArray()));
            return true;
        }
    }

    private static WebSocketSession Server(WebSocketSessionOptions? options = null, bool deflate = true)
    {
        var session = new WebSocketSession(WebSocketRole.Server, options);
        if (deflate)
        {
            session.EnablePerMessageDeflate(DeflateParameters.Default);
        }

        return session;
    }

    private static OperationStatus Feed(WebSocketSession session, List<(WebSocketOpcode Opcode, bool Fin, int Rsv, byte[] Payload)> frames, params byte[][] wire)
    {
        byte[] input = wire.SelectMany(frame => frame).ToArray();
        var recorder = new Recorder(frames);
        return session.Receive(input, ref recorder, out _);
    }

    private static byte[] Client(byte first, byte[] payload) => WireFrames.Client(first, payload);

    [Fact]
    public void ACompressedTextMessageReachesTheHandlerInflatedWithRsvClear()
    {
        using WebSocketSession session = Server();
        var frames = new List<(WebSocketOpcode, bool, int, byte[])>();

        Assert.Equal(OperationStatus.NeedMoreData, Feed(session, frames, Client(0xC1, Hello))); // FIN, RSV1, Text

        (WebSocketOpcode opcode, bool fin, int rsv, byte[] payload) = Assert.Single(frames);
        Assert.Equal((WebSocketOpcode.Text, true, 0), (opcode, fin, rsv));
        Assert.Equal("Hello"u8.ToArray(), payload);
    }

    [Fact]
    public void AFragmentedCompressedMessageIsInflatedFragmentByFragmentAndContextCarriesOver()
    {
        using WebSocketSession session = Server();
        var frames = new List<(WebSocketOpcode Opcode, bool Fin, int Rsv, byte[] Payload)>();

        Feed(session, frames,
            Client(0x41, Hello[..3]), // RSV1, Text, no FIN
            Client(0x80, Hello[3..]), // FIN, continuation (RSV clear: it belongs to the compressed message)
            Client(0xC2, Convert.FromHexString("f200110000")), // §7.2.3.2: a second "Hello" pointing into the first
            Client(0x82, "plain"u8.ToArray())); // an uncompressed message, RSV clear

        Assert.Equal([WebSocketOpcode.Text, WebSocketOpcode.Continuation, WebSocketOpcode.Binary, WebSocketOpcode.Binary], frames.Select(f => f.Opcode));
        Assert.All(frames, f => Assert.Equal(0, f.Rsv));
        Assert.Equal("Hello"u8.ToArray(), frames[0].Payload.Concat(frames[1].Payload).ToArray());
        Assert.Equal("Hello"u8.ToArray(), frames[2].Payload);
        Assert.Equal("plain"u8.ToArray(), frames[3].Payload);
    }

    [Fact]
    public void ABombFailsWith1009AtTheLimitWithoutInflatingTheRest()
    {
        var pool = new CountingPool();
        var options = WebSocketSessionOptions.Default with { MaxMessagePayloadLength = 64 * 1024, Pool = pool };
        byte[] bomb = Compress(new byte[32 * 1024 * 1024]); // ~32 KiB on the wire
        var frames = new List<(WebSocketOpcode Opcode, bool Fin, int Rsv, byte[] Payload)>();
        using (WebSocketSession session = Server(options))
        {
            int fragment = (bomb.Length + 99) / 100;
            byte[][] wire = bomb.Chunk(fragment).Select((part, i) => Client(
                (byte)((i == 0 ? 0x42 : 0x00) | (i == (bomb.Length - 1) / fragment ? 0x80 : 0)), part)).ToArray();

            Assert.Equal(OperationStatus.InvalidData, Feed(session, frames, wire));

            Assert.Equal(ProtocolViolation.MessageTooBig, session.Violation);
            Assert.Equal(CloseStatus.MessageTooBig, session.SentCloseStatus);
            Assert.InRange(frames.Sum(f => f.Payload.Length), 0, 64 * 1024);
        }

        pool.AssertBalanced();
    }

    [Fact]
    public void DataThatDoesNotInflateFailsWith1007()
    {
        using WebSocketSession session = Server();
        var frames = new List<(WebSocketOpcode, bool, int, byte[])>();

        Assert.Equal(OperationStatus.InvalidData, Feed(session, frames, Client(0xC2, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF])));

        Assert.Equal(ProtocolViolation.InvalidCompressedData, session.Violation);
        Assert.Equal(CloseStatus.InvalidPayloadData, session.SentCloseStatus);
        Assert.Empty(frames);
    }

    [Fact]
    public void CompressedTextThatInflatesToInvalidUtf8FailsWith1007()
    {
        using WebSocketSession session = Server();
        var frames = new List<(WebSocketOpcode, bool, int, byte[])>();

        Assert.Equal(OperationStatus.InvalidData, Feed(session, frames, Client(0xC1, Compress([0xC3, 0x28, 0x41]))));

        Assert.Equal(ProtocolViolation.InvalidTextUtf8, session.Violation);
        Assert.Equal(CloseStatus.InvalidPayloadData, session.SentCloseStatus);
    }

    [Fact]
    public void WithoutTheExtensionACompressedFrameFailsWith1002()
    {
        using WebSocketSession session = Server(deflate: false);
        var frames = new List<(WebSocketOpcode, bool, int, byte[])>();

        Assert.Equal(OperationStatus.InvalidData, Feed(session, frames, Client(0xC1, Hello)));

        Assert.Equal(ProtocolViolation.ReservedBitsSet, session.Violation);
        Assert.Equal(CloseStatus.ProtocolError, session.SentCloseStatus);
    }

    [Fact]
    public void ThePoolGetsEveryBufferBackAfterCompressedMessages()
    {
        var pool = new CountingPool();
        using (WebSocketSession session = Server(WebSocketSessionOptions.Default with { Pool = pool }))
        {
            var frames = new List<(WebSocketOpcode, bool, int, byte[])>();
            Feed(session, frames, Client(0xC2, Compress(new byte[200_000])), Client(0xC1, Hello));
            Assert.Equal(2, frames.Count);
        }

        pool.AssertBalanced();
    }

    private static byte[] Compress(byte[] message)
    {
        var output = new ArrayBufferWriter<byte>();
        using var deflater = new MessageDeflater(CompressionLevel.SmallestSize, keepContext: false);
        deflater.Compress(message, output);
        return output.WrittenSpan.ToArray();
    }
}
