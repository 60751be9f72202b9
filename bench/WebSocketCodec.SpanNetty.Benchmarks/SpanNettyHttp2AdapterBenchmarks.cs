using BenchmarkDotNet.Attributes;
using DotNetty.Buffers;
using DotNetty.Codecs.Http2;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Benchmarks;

namespace WebSocketCodec.SpanNetty.Benchmarks;

/// <summary>
/// What carrying a websocket on an HTTP/2 stream adds to our SpanNetty echo, per frame: <see cref="Frames"/> masked
/// binary frames arrive in one read cycle, each in an inbound buffer of its own, and the listener echoes each with the
/// frame sender (one write and one flush when the cycle ends). Over HTTP/1.1 (the baseline) the buffers reach the
/// <see cref="WebSocketChannelHandler"/> directly; over HTTP/2 each is the content of a DATA frame that passes through
/// the <see cref="Http2StreamByteAdapter"/> (unwrapped on the way in; the echo's buffer wrapped in a DATA frame on the
/// way out), as on a stream's child channel. <c>Http1OneBuffer</c> is the same frames in one buffer, as a socket read
/// of a pipelined load delivers them. Both on an EmbeddedChannel: the codec's HPACK, framing and flow control (which a
/// raw HTTP/2 echo pays as well) are not in these numbers; the inbound DATA frame objects, which SpanNetty's codec
/// makes per frame, are (made here). Results are per frame; every written buffer is read and released.
/// </summary>
[MemoryDiagnoser]
public class SpanNettyHttp2AdapterBenchmarks
{
    private const int Frames = 1000;
    private byte[] _wire = [];
    private int _frameLength;
    private EmbeddedChannel _http1 = null!;
    private EmbeddedChannel _http2 = null!;
    private readonly object[] _messages = new object[Frames];

    /// <summary>Payload bytes per frame.</summary>
    [Params(8, 64, 125)]
    public int PayloadLength { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _wire = WireFrames.Binary(Frames, PayloadLength, masked: true);
        _frameLength = _wire.Length / Frames;
        _http1 = new EmbeddedChannel(new WebSocketChannelHandler(WebSocketRole.Server, sender => new Echo(sender)));
        _http2 = new EmbeddedChannel(new Http2StreamByteAdapter(), new WebSocketChannelHandler(WebSocketRole.Server, sender => new Echo(sender)));
        // Once, checking: every frame echoed, unmasked (2 header bytes, no mask key).
        long expected = Frames * (2L + PayloadLength);
        long http1 = Http1(), http2 = Http2(), oneBuffer = Http1OneBuffer();
        if (http1 != expected || http2 != expected || oneBuffer != expected)
        {
            throw new InvalidOperationException($"Echoed {http1} (HTTP/1.1), {http2} (HTTP/2), {oneBuffer} (one buffer) bytes; expected {expected}.");
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _http1.FinishAndReleaseAll();
        _http2.FinishAndReleaseAll();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Frames)]
    public long Http1()
    {
        for (int i = 0; i < Frames; i++)
        {
            _messages[i] = Frame(i);
        }

        _http1.WriteInbound(_messages);
        return DrainBuffers(_http1);
    }

    [Benchmark(OperationsPerInvoke = Frames)]
    public long Http2()
    {
        for (int i = 0; i < Frames; i++)
        {
            _messages[i] = new DefaultHttp2DataFrame(Frame(i), endStream: false);
        }

        _http2.WriteInbound(_messages);
        long bytes = 0;
        while (_http2.ReadOutbound<object>() is { } written)
        {
            var data = (IHttp2DataFrame)written;
            bytes += data.Content.ReadableBytes;
            data.Release();
        }

        return bytes;
    }

    [Benchmark(OperationsPerInvoke = Frames)]
    public long Http1OneBuffer()
    {
        IByteBuffer input = PooledByteBufferAllocator.Default.Buffer(_wire.Length);
        input.WriteBytes(_wire);
        _http1.WriteInbound(input);
        return DrainBuffers(_http1);
    }

    private IByteBuffer Frame(int index)
    {
        IByteBuffer frame = PooledByteBufferAllocator.Default.Buffer(_frameLength);
        frame.WriteBytes(_wire, index * _frameLength, _frameLength);
        return frame;
    }

    private static long DrainBuffers(EmbeddedChannel channel)
    {
        long bytes = 0;
        while (channel.ReadOutbound<object>() is { } written)
        {
            bytes += ((IByteBuffer)written).ReadableBytes;
            ReferenceCountUtil.Release(written);
        }

        return bytes;
    }

    private sealed class Echo(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => sender.Send(opcode, payload, fin);
    }
}
