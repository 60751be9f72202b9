using System.Buffers;
using System.Net.WebSockets;
using BenchmarkDotNet.Attributes;

namespace WebSocketCodec.Benchmarks;

/// <summary>
/// Decoding <see cref="Frames"/> binary frames already in memory: ours parses, validates and unmasks in place;
/// ManagedWebSocket (<see cref="WebSocket.CreateFromStream(Stream, WebSocketCreationOptions)"/>, the codec behind
/// ASP.NET Core's WebSockets and ClientWebSocket) receives the same bytes from a stream that replays them
/// (one socket for the whole run, so its set-up is not counted).
/// Masked frames are read as a server, unmasked ones as a client. Results are per frame.
/// </summary>
[MemoryDiagnoser]
public class DecodeBenchmarks
{
    private const int Frames = 1000;
    private byte[] _wire = [];
    private byte[] _receiveBuffer = [];
    private ReplayStream _stream = null!;
    private WebSocket _socket = null!;
    private FrameDecoder _decoder = null!;

    /// <summary>Payload bytes per frame.</summary>
    [Params(8, 64, 125, 1000)]
    public int PayloadLength { get; set; }

    /// <summary>Whether the frames are masked (client to server).</summary>
    [Params(true, false)]
    public bool Masked { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _wire = WireFrames.Binary(Frames, PayloadLength, Masked);
        _receiveBuffer = new byte[Math.Max(PayloadLength, 16)];
        _stream = new ReplayStream(WireFrames.Binary(Frames, PayloadLength, Masked));
        _socket = WebSocket.CreateFromStream(
            _stream, new WebSocketCreationOptions { IsServer = Masked, KeepAliveInterval = TimeSpan.Zero });
        _decoder = new FrameDecoder(Masked ? WebSocketRole.Server : WebSocketRole.Client);
        long ours = Ours();
        _wire = WireFrames.Binary(Frames, PayloadLength, Masked);
        long batch = OursDecodeFrames();
        if (batch != ours)
        {
            throw new InvalidOperationException($"DecodeFrames decoded {batch} bytes, ReadFrame {ours}.");
        }

        long theirs = ManagedWebSocketReceive();
        if (ours != theirs || ours != (long)Frames * PayloadLength)
        {
            throw new InvalidOperationException($"Decoded {ours} bytes, ManagedWebSocket {theirs}; expected {Frames * PayloadLength}.");
        }

        // Ours unmasks in place: restore the masked bytes so every iteration sees the same input.
        _wire = WireFrames.Binary(Frames, PayloadLength, Masked);
    }

    [GlobalCleanup]
    public void Cleanup() => _socket.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = Frames)]
    public long ManagedWebSocketReceive()
    {
        WebSocket socket = _socket;
        long total = 0;
        for (int i = 0; i < Frames; i++)
        {
            ValueTask<ValueWebSocketReceiveResult> receive = socket.ReceiveAsync(_receiveBuffer.AsMemory(), default);
            ValueWebSocketReceiveResult result = receive.IsCompletedSuccessfully ? receive.Result : receive.AsTask().GetAwaiter().GetResult();
            total += result.Count;
        }

        return total;
    }

    [Benchmark(OperationsPerInvoke = Frames)]
    public long Ours()
    {
        Span<byte> input = _wire;
        FrameDecoder decoder = _decoder;
        long total = 0;
        while (!input.IsEmpty)
        {
            if (decoder.ReadFrame(input, out FrameHeader header, out Span<byte> payload, out _) != OperationStatus.Done)
            {
                throw new InvalidOperationException(decoder.Violation.Describe());
            }

            total += payload.Length;
            input = input.Slice((int)header.FrameLength);
        }

        return total;
    }

    /// <summary>The transport read loop's call: every whole frame in the buffer handed to a struct handler.</summary>
    [Benchmark(OperationsPerInvoke = Frames)]
    public long OursDecodeFrames()
    {
        var handler = new SumHandler();
        if (_decoder.DecodeFrames(_wire, ref handler, out int consumed, out _) != OperationStatus.NeedMoreData || consumed != _wire.Length)
        {
            throw new InvalidOperationException(_decoder.Violation.Describe());
        }

        return handler.Total;
    }

    private struct SumHandler : IFrameHandler
    {
        public long Total;

        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Total += payload.Length;
            return true;
        }
    }
}
