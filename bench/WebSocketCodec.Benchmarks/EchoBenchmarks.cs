using System.Buffers;
using System.IO.Pipelines;
using System.Net.WebSockets;
using BenchmarkDotNet.Attributes;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Benchmarks;

/// <summary>
/// A server echoing <see cref="Frames"/> masked binary frames over in-memory pipes, end to end: ours is a
/// <see cref="WebSocketConnection"/> with a callbacks listener that echoes each frame from the read loop (one flush per
/// read); the baseline is ManagedWebSocket (the codec behind ASP.NET Core's WebSockets) on a stream over the same
/// pipes, in the usual receive/send loop. Each operation writes the batch and waits for every echoed byte. Results
/// are per frame; the pipes reuse their memory, so allocations are the codecs' own.
/// </summary>
[MemoryDiagnoser]
public class EchoBenchmarks
{
    private const int Frames = 1000;
    private byte[] _batch = [];
    private byte[] _expected = [];
    private Transport _ours = null!;
    private Transport _managed = null!;
    private Transport _raw = null!;
    private WebSocketConnection _channel = null!;
    private WebSocket _socket = null!;
    private Task _oursServer = Task.CompletedTask;
    private Task _managedServer = Task.CompletedTask;
    private Task _rawServer = Task.CompletedTask;

    /// <summary>Payload bytes per frame.</summary>
    [Params(8, 64, 125, 1000)]
    public int PayloadLength { get; set; }

    /// <summary>Both servers, each on its own pipes; one round trip each checks the echo byte for byte.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _batch = WireFrames.Binary(Frames, PayloadLength, masked: true);
        _expected = WireFrames.Binary(Frames, PayloadLength, masked: false);
        _ours = new Transport();
        _channel = new WebSocketConnection(_ours.Server, WebSocketRole.Server);
        _oursServer = _channel.RunAsync(sender => new EchoListener(sender));
        _managed = new Transport();
        _socket = WebSocket.CreateFromStream(
            new DuplexPipeStream(_managed.Server.Input, _managed.Server.Output),
            new WebSocketCreationOptions { IsServer = true, KeepAliveInterval = TimeSpan.Zero });
        _managedServer = Task.Run(() => EchoAsync(_socket));
        _raw = new Transport();
        IDuplexPipe rawServer = _raw.Server;
        _rawServer = Task.Run(() => ByteEchoAsync(rawServer));
        Validate(_ours);
        Validate(_managed);
        ValidateLength(_raw);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _ours.ToServer.Writer.Complete();
        _managed.ToServer.Writer.Complete();
        _raw.ToServer.Writer.Complete();
        _channel.Dispose();
        _socket.Dispose();
        Task.WaitAll([_oursServer, _managedServer, _rawServer], TimeSpan.FromSeconds(5));
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Frames)]
    public Task<long> ManagedWebSocketEcho() => RoundTripAsync(_managed, null);

    [Benchmark(OperationsPerInvoke = Frames)]
    public Task<long> Ours() => RoundTripAsync(_ours, null);

    /// <summary>The floor: the same bytes copied back unparsed (masked frames, same length as the echo), the in-memory
    /// counterpart of the perf tool's <c>raw</c>; ours over this is the codec's whole cost.</summary>
    [Benchmark(OperationsPerInvoke = Frames)]
    public Task<long> RawByteEcho() => RoundTripAsync(_raw, null);

    /// <summary>One round trip, keeping the bytes, compared with the frames a server must send back.</summary>
    private void Validate(Transport transport)
    {
        var received = new ArrayBufferWriter<byte>();
        long count = RoundTripAsync(transport, received).GetAwaiter().GetResult();
        if (count != _expected.Length || !received.WrittenSpan.SequenceEqual(_expected))
        {
            throw new InvalidOperationException($"The echo sent {count} bytes, expected {_expected.Length} equal to the input's frames.");
        }
    }

    /// <summary>The byte echo returns the masked input, which is longer than an unmasked echo by the keys: wait for
    /// that many bytes.</summary>
    private void ValidateLength(Transport transport)
    {
        var received = new ArrayBufferWriter<byte>();
        long count = RoundTripAsync(transport, received).GetAwaiter().GetResult();
        if (!received.WrittenSpan.SequenceEqual(_batch))
        {
            throw new InvalidOperationException($"The byte echo sent {count} bytes, expected the {_batch.Length} it was given.");
        }
    }

    private async Task<long> RoundTripAsync(Transport transport, ArrayBufferWriter<byte>? keep)
    {
        // BenchmarkDotNet's execution validator starts an operation before the previous one has finished: one round
        // trip at a time, or two would share a pipe end (uncontended, this costs nothing next to 1000 frames).
        await transport.Turn.WaitAsync();
        try
        {
            return await RoundTripLockedAsync(transport, keep);
        }
        finally
        {
            transport.Turn.Release();
        }
    }

    private async Task<long> RoundTripLockedAsync(Transport transport, ArrayBufferWriter<byte>? keep)
    {
        await transport.ToServer.Writer.WriteAsync(_batch);
        long received = 0;
        PipeReader reader = transport.ToClient.Reader;
        int expected = transport == _raw ? _batch.Length : _expected.Length;
        while (received < expected)
        {
            ReadResult result = await reader.ReadAsync();
            foreach (ReadOnlyMemory<byte> segment in result.Buffer)
            {
                keep?.Write(segment.Span);
            }

            received += result.Buffer.Length;
            reader.AdvanceTo(result.Buffer.End);
            if (result.IsCompleted)
            {
                break;
            }
        }

        return received;
    }

    private static async Task EchoAsync(WebSocket socket)
    {
        byte[] buffer = new byte[64 * 1024];
        try
        {
            while (true)
            {
                ValueWebSocketReceiveResult result = await socket.ReceiveAsync(buffer.AsMemory(), CancellationToken.None);
                if (result.MessageType == WebSocketMessageType.Close)
                {
                    return;
                }

                await socket.SendAsync(buffer.AsMemory(0, result.Count), result.MessageType, result.EndOfMessage, CancellationToken.None);
            }
        }
        catch (Exception error) when (error is WebSocketException or OperationCanceledException or ObjectDisposedException or IOException)
        {
            // The benchmark ended.
        }
    }

    private static async Task ByteEchoAsync(IDuplexPipe pipe)
    {
        while (true)
        {
            ReadResult result = await pipe.Input.ReadAsync();
            foreach (ReadOnlyMemory<byte> segment in result.Buffer)
            {
                segment.Span.CopyTo(pipe.Output.GetSpan(segment.Length));
                pipe.Output.Advance(segment.Length);
            }

            pipe.Input.AdvanceTo(result.Buffer.End);
            await pipe.Output.FlushAsync();
            if (result.IsCompleted)
            {
                return;
            }
        }
    }

    private sealed class EchoListener(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => sender.Send(opcode, payload, fin);
    }

    /// <summary>Two pipes that reuse their memory: the server's end, and the benchmark's as the client.</summary>
    private sealed class Transport
    {
        private static readonly PipeOptions Options = new(
            new ReusingMemoryPool(), pauseWriterThreshold: 4 << 20, resumeWriterThreshold: 2 << 20, useSynchronizationContext: false);

        public Pipe ToServer { get; } = new(Options);

        public Pipe ToClient { get; } = new(Options);

        public SemaphoreSlim Turn { get; } = new(1, 1);

        public IDuplexPipe Server => new Duplex(ToServer.Reader, ToClient.Writer);

        private sealed class Duplex(PipeReader input, PipeWriter output) : IDuplexPipe
        {
            public PipeReader Input { get; } = input;

            public PipeWriter Output { get; } = output;
        }
    }
}
