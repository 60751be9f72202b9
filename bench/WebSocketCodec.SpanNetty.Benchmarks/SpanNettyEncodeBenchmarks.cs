using BenchmarkDotNet.Attributes;
using DotNetty.Buffers;
using DotNetty.Codecs.Http.WebSockets;
using DotNetty.Common.Utilities;
using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Benchmarks;

namespace WebSocketCodec.SpanNetty.Benchmarks;

/// <summary>
/// Encoding <see cref="Frames"/> binary frames and flushing once, through an EmbeddedChannel: SpanNetty's
/// <c>WebSocket13FrameEncoder</c> (a frame object per message around a pooled payload, a header buffer or a copy per
/// frame) against ours: the bulk tier (every frame packed into the output's pooled buffer, one write) and the
/// per-frame copying tier (<c>Send</c>), run by the listener as it reads one empty trigger frame (the synchronous tiers
/// are the read loop's), flushed by the driver at the read's end. Masked as a client sends, or not as a server does.
/// Results are per frame; the written bytes are read and released in every case.
/// </summary>
[MemoryDiagnoser]
public class SpanNettyEncodeBenchmarks
{
    private const int Frames = 1000;
    private byte[] _payload = [];
    private IByteBuffer _payloadBuffer = null!;
    private EmbeddedChannel _ours = null!;
    private EmbeddedChannel _builtin = null!;
    private WebSocketFrameSender _sender = null!;
    private Action? _onTrigger;

    /// <summary>Payload bytes per frame.</summary>
    [Params(8, 64, 125, 1000)]
    public int PayloadLength { get; set; }

    /// <summary>Whether frames are masked (a client's).</summary>
    [Params(false, true)]
    public bool Masked { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _payload = WireFrames.Payload(PayloadLength);
        _payloadBuffer = PooledByteBufferAllocator.Default.Buffer(PayloadLength);
        _payloadBuffer.WriteBytes(_payload);
        _ours = new EmbeddedChannel(new WebSocketChannelHandler(Masked ? WebSocketRole.Client : WebSocketRole.Server, sender =>
        {
            _sender = sender;
            return new Trigger(this);
        }));
        _builtin = new EmbeddedChannel(new WebSocket13FrameEncoder(Masked));
        long expected = Frames * (2L + (Masked ? 4 : 0) + (PayloadLength > 125 ? 2 : 0) + PayloadLength);
        long bulk = OursBulk(), send = OursSend(), builtin = Builtin();
        if (bulk != expected || send != expected || builtin != expected)
        {
            throw new InvalidOperationException($"Wrote {bulk} (bulk), {send} (send), SpanNetty {builtin} bytes; expected {expected}.");
        }
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _payloadBuffer.Release();
        _ours.FinishAndReleaseAll();
        _builtin.FinishAndReleaseAll();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Frames)]
    public long Builtin()
    {
        for (int i = 0; i < Frames; i++)
        {
            _ = _builtin.WriteOneOutbound(new BinaryWebSocketFrame(_payloadBuffer.RetainedDuplicate()), _builtin.VoidPromise());
        }

        _builtin.FlushOutbound();
        return Drain(_builtin);
    }

    [Benchmark(OperationsPerInvoke = Frames)]
    public long OursBulk()
    {
        _onTrigger = () =>
        {
            BulkFrameWriter bulk = _sender.BeginBulk();
            for (int i = 0; i < Frames; i++)
            {
                bulk.Add(WebSocketOpcode.Binary, _payload);
            }

            bulk.Complete();
        };
        return RunOurs();
    }

    [Benchmark(OperationsPerInvoke = Frames)]
    public long OursSend()
    {
        _onTrigger = () =>
        {
            for (int i = 0; i < Frames; i++)
            {
                _sender.Send(WebSocketOpcode.Binary, _payload);
            }
        };
        return RunOurs();
    }

    /// <summary>One empty Binary frame in (masked for a server), the listener's frames out in one flush.</summary>
    private long RunOurs()
    {
        IByteBuffer trigger = Unpooled.WrappedBuffer(Masked ? new byte[] { 0x82, 0x00 } : new byte[] { 0x82, 0x80, 1, 2, 3, 4 });
        _ = _ours.WriteInbound(trigger);
        return Drain(_ours);
    }

    private static long Drain(EmbeddedChannel channel)
    {
        long bytes = 0;
        while (channel.ReadOutbound<object>() is { } written)
        {
            bytes += ((IByteBuffer)written).ReadableBytes;
            ReferenceCountUtil.Release(written);
        }

        return bytes;
    }

    private sealed class Trigger(SpanNettyEncodeBenchmarks bench) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => bench._onTrigger?.Invoke();
    }
}
