using System.Buffers;
using System.Net.WebSockets;
using BenchmarkDotNet.Attributes;

namespace WebSocketCodec.Benchmarks;

/// <summary>
/// Encoding <see cref="Frames"/> binary frames: ManagedWebSocket <c>SendAsync</c> into a <see cref="MemoryStream"/>
/// against our three tiers and the copying writer, into a reused buffer. A client masks (fresh key per frame), a server
/// does not. Results are per frame.
/// </summary>
[MemoryDiagnoser]
public class EncodeBenchmarks
{
    private const int Frames = 1000;
    private byte[] _payload = [];
    private MemoryStream _stream = new();
    private WebSocket _socket = null!;
    private ArrayBufferWriter<byte> _writer = new();
    private byte[] _batchBuffer = [];
    private FrameEncoder _encoder = null!;

    /// <summary>Payload bytes per frame.</summary>
    [Params(8, 64, 125, 1000)]
    public int PayloadLength { get; set; }

    /// <summary>Which end encodes: a client masks.</summary>
    [Params(WebSocketRole.Server, WebSocketRole.Client)]
    public WebSocketRole Role { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _payload = WireFrames.Payload(PayloadLength);
        int wireLength = Frames * (PayloadLength + 14);
        _stream = new MemoryStream(wireLength);
        _socket = WebSocket.CreateFromStream(
            _stream, new WebSocketCreationOptions { IsServer = Role == WebSocketRole.Server, KeepAliveInterval = TimeSpan.Zero });
        _writer = new ArrayBufferWriter<byte>(wireLength);
        _batchBuffer = new byte[wireLength];
        _encoder = new FrameEncoder(Role);

        long expected = ManagedWebSocketSend();
        foreach (long actual in new[] { Write(), Reserve(), Bulk(), Batch() })
        {
            if (actual != expected)
            {
                throw new InvalidOperationException($"Encoded {actual} bytes, ManagedWebSocket {expected}.");
            }
        }
    }

    [GlobalCleanup]
    public void Cleanup() => _socket.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = Frames)]
    public long ManagedWebSocketSend()
    {
        _stream.Position = 0;
        for (int i = 0; i < Frames; i++)
        {
            ValueTask send = _socket.SendAsync(_payload.AsMemory(), WebSocketMessageType.Binary, true, default);
            if (!send.IsCompletedSuccessfully)
            {
                send.AsTask().GetAwaiter().GetResult();
            }
        }

        return _stream.Position;
    }

    /// <summary>Copying writer: header + payload copy (masked for a client) per frame, one Advance each.</summary>
    [Benchmark(OperationsPerInvoke = Frames)]
    public long Write()
    {
        _writer.ResetWrittenCount();
        for (int i = 0; i < Frames; i++)
        {
            _encoder.Write(_writer, WebSocketOpcode.Binary, _payload);
        }

        return _writer.WrittenCount;
    }

    /// <summary>Tier 1: reserve the frame, write the payload in place, commit.</summary>
    [Benchmark(OperationsPerInvoke = Frames)]
    public long Reserve()
    {
        _writer.ResetWrittenCount();
        for (int i = 0; i < Frames; i++)
        {
            ReservedFrame frame = _encoder.Reserve(_writer, WebSocketOpcode.Binary, _payload.Length);
            _payload.CopyTo(frame.Payload);
            frame.Commit();
        }

        return _writer.WrittenCount;
    }

    /// <summary>Tier 3 over the buffer writer: frames packed into one span, one Advance at the end.</summary>
    [Benchmark(OperationsPerInvoke = Frames)]
    public long Bulk()
    {
        _writer.ResetWrittenCount();
        var bulk = new BulkFrameWriter(_encoder, _writer, _batchBuffer.Length);
        for (int i = 0; i < Frames; i++)
        {
            bulk.Add(WebSocketOpcode.Binary, _payload);
        }

        return bulk.Complete();
    }

    /// <summary>Tier 3 into a plain buffer.</summary>
    [Benchmark(OperationsPerInvoke = Frames)]
    public long Batch()
    {
        var batch = new FrameBatch(_encoder, _batchBuffer);
        for (int i = 0; i < Frames; i++)
        {
            batch.TryAdd(WebSocketOpcode.Binary, _payload);
        }

        return batch.Complete();
    }
}
