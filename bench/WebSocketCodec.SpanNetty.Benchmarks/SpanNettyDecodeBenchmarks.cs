using BenchmarkDotNet.Attributes;
using DotNetty.Buffers;
using DotNetty.Codecs.Http.WebSockets;
using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Benchmarks;

namespace WebSocketCodec.SpanNetty.Benchmarks;

/// <summary>
/// Decoding <see cref="Frames"/> masked binary frames arriving in one pooled buffer, through an EmbeddedChannel: ours
/// (<see cref="WebSocketChannelHandler"/>: decoded, validated and unmasked in place, handed over as spans) against
/// SpanNetty's <c>WebSocket13FrameDecoder</c> (a frame object and a payload copy per frame, read and released here).
/// Both pay the same copy of the wire bytes into the buffer. Results are per frame.
/// </summary>
[MemoryDiagnoser]
public class SpanNettyDecodeBenchmarks
{
    private const int Frames = 1000;
    private byte[] _wire = [];
    private EmbeddedChannel _ours = null!;
    private EmbeddedChannel _builtin = null!;
    private readonly Counting _counting = new();

    /// <summary>Payload bytes per frame.</summary>
    [Params(8, 64, 125, 1000)]
    public int PayloadLength { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _wire = WireFrames.Binary(Frames, PayloadLength, masked: true);
        _ours = new EmbeddedChannel(new WebSocketChannelHandler(WebSocketRole.Server, _ => _counting));
        _builtin = new EmbeddedChannel(new WebSocket13FrameDecoder(expectMaskedFrames: true, allowExtensions: false, maxFramePayloadLength: 1 << 20));
        // Once, checking content: both must see every payload byte as sent.
        long expected = Frames * WireFrames.Payload(PayloadLength).Sum(b => (long)b);
        _counting.Verify = true;
        long ours = Ours();
        _counting.Verify = false;
        _builtin.WriteInbound(Input());
        long builtin = 0, builtinSum = 0;
        while (_builtin.ReadInbound<WebSocketFrame>() is { } frame)
        {
            builtin += frame.Content.ReadableBytes;
            foreach (byte b in frame.Content.GetReadableSpan())
            {
                builtinSum += b;
            }

            frame.Release();
        }

        if (ours != builtin || ours != (long)Frames * PayloadLength || _counting.Sum != expected || builtinSum != expected)
        {
            throw new InvalidOperationException($"Decoded {ours} bytes (sum {_counting.Sum}), SpanNetty {builtin} (sum {builtinSum}); expected {Frames * PayloadLength} (sum {expected}).");
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _ours.FinishAndReleaseAll();
        _builtin.FinishAndReleaseAll();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Frames)]
    public long Builtin()
    {
        _builtin.WriteInbound(Input());
        long bytes = 0;
        while (_builtin.ReadInbound<WebSocketFrame>() is { } frame)
        {
            bytes += frame.Content.ReadableBytes;
            frame.Release();
        }

        return bytes;
    }

    [Benchmark(OperationsPerInvoke = Frames)]
    public long Ours()
    {
        _counting.Bytes = 0;
        _ours.WriteInbound(Input());
        return _counting.Bytes;
    }

    private IByteBuffer Input()
    {
        IByteBuffer input = PooledByteBufferAllocator.Default.Buffer(_wire.Length);
        input.WriteBytes(_wire);
        return input;
    }

    private sealed class Counting : IWebSocketFrameListener
    {
        public long Bytes { get; set; }

        public bool Verify { get; set; }

        public long Sum { get; private set; }

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Bytes += payload.Length;
            if (Verify)
            {
                foreach (byte b in payload)
                {
                    Sum += b;
                }
            }
        }
    }
}
