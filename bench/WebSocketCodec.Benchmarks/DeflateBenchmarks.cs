using System.Buffers;
using System.IO.Compression;
using System.IO.Pipelines;
using System.Net.WebSockets;
using BenchmarkDotNet.Attributes;
using WebSocketCodec.Bench;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Benchmarks;

/// <summary>
/// permessage-deflate per message, <see cref="Messages"/> JSON text messages per operation, ours against
/// ManagedWebSocket (the codec behind ASP.NET Core's WebSockets and ClientWebSocket) with the same negotiated
/// parameters (15-bit windows both ways, context takeover both ways or neither) and the same compression level: zlib's
/// default (6), which is ManagedWebSocket's fixed level and <see cref="CompressionLevel.Optimal"/> for ours.
/// <list type="bullet">
/// <item><c>*Echo</c>: a server on in-memory pipes inflates and decodes the client's compressed masked frames, and
/// compresses and frames each echo; ours is a <see cref="WebSocketConnection"/> with a callbacks listener, switched
/// to the negotiated extension as the Kestrel endpoint does, ManagedWebSocket runs the usual receive/send loop on a
/// stream over the same pipes.</item>
/// <item><c>*Send</c> / <c>OursCompressAndFrame</c>: compress + frame only (a server's echo, unmasked);
/// <c>*Receive</c> / <c>OursDecodeAndInflate</c>: decode + unmask + inflate only (the client's frames, replayed).
/// Ours here is the core's <c>MessageDeflater</c>/<c>MessageInflater</c> with <see cref="FrameEncoder"/>/
/// <see cref="FrameDecoder"/>; ManagedWebSocket runs on a stream that replays the bytes and swallows writes.</item>
/// </list>
/// The messages differ (records with different values, same keys), so context takeover finds what real traffic gives
/// it. Results are per message; the pipes reuse their memory, so allocations are the codecs' own.
/// </summary>
[MemoryDiagnoser]
public class DeflateBenchmarks
{
    private const int Messages = 100;
    private const long InflateLimit = 16 << 20; // the default message limit (long.MaxValue would overflow the inflater's "limit + 1")
    private const CompressionLevel ManagedWebSocketLevel = CompressionLevel.Optimal; // zlib's default, level 6
    private byte[][] _messages = [];
    private byte[] _batch = [];
    private byte[] _work = [];
    private Transport _ours = null!;
    private Transport _managed = null!;
    private WebSocketConnection _connection = null!;
    private WebSocket _managedServer = null!;
    private Task _oursLoop = Task.CompletedTask;
    private Task _managedLoop = Task.CompletedTask;
    private WebSocket _sender = null!;
    private WebSocket _receiver = null!;
    private byte[] _receiveBuffer = [];
    private MessageDeflater _deflater = null!;
    private MessageInflater _inflater = null!;
    private ArrayBufferWriter<byte> _compressed = new();
    private ArrayBufferWriter<byte> _wire = new();
    private ArrayBufferWriter<byte> _inflated = new();
    private FrameEncoder _encoder = null!;
    private FrameDecoder _decoder = null!;

    /// <summary>JSON bytes per message (before compression).</summary>
    [Params(64, 1024, 16384)]
    public int PayloadLength { get; set; }

    /// <summary>Whether both sides keep their compression context between messages (else
    /// <c>server_no_context_takeover; client_no_context_takeover</c>).</summary>
    [Params(true, false)]
    public bool ContextTakeover { get; set; }

    private DeflateParameters Negotiated => new(!ContextTakeover, !ContextTakeover, 15, 15);

    private WebSocketDeflateOptions ManagedOptions => new()
    {
        ClientMaxWindowBits = 15,
        ServerMaxWindowBits = 15,
        ClientContextTakeover = ContextTakeover,
        ServerContextTakeover = ContextTakeover,
    };

    [GlobalSetup]
    public void Setup()
    {
        _messages = [.. Enumerable.Range(0, Messages).Select(i => JsonPayload.Create(PayloadLength, seed: i))];
        _batch = ClientFrames(_messages, ContextTakeover);
        _work = new byte[_batch.Length];
        _receiveBuffer = new byte[64 * 1024];

        _ours = new Transport();
        _connection = new WebSocketConnection(_ours.Server, WebSocketRole.Server);
        _connection.EnablePerMessageDeflate(Negotiated, new PerMessageDeflateOptions { Level = ManagedWebSocketLevel, Threshold = 0 });
        _oursLoop = _connection.RunAsync(sender => new EchoListener(sender));
        _managed = new Transport();
        _managedServer = WebSocket.CreateFromStream(
            new DuplexPipeStream(_managed.Server.Input, _managed.Server.Output),
            new WebSocketCreationOptions { IsServer = true, KeepAliveInterval = TimeSpan.Zero, DangerousDeflateOptions = ManagedOptions });
        _managedLoop = Task.Run(() => EchoAsync(_managedServer));

        _sender = WebSocket.CreateFromStream(new ReplayStream([]), new WebSocketCreationOptions { IsServer = true, KeepAliveInterval = TimeSpan.Zero, DangerousDeflateOptions = ManagedOptions });
        _receiver = WebSocket.CreateFromStream(new ReplayStream(_batch), new WebSocketCreationOptions { IsServer = true, KeepAliveInterval = TimeSpan.Zero, DangerousDeflateOptions = ManagedOptions });
        _deflater = new MessageDeflater(ManagedWebSocketLevel, ContextTakeover);
        _inflater = new MessageInflater(ContextTakeover);
        _encoder = new FrameEncoder(WebSocketRole.Server);
        _decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { PerMessageDeflate = true });

        ValidateEcho(_ours, "ours");
        ValidateEcho(_managed, "ManagedWebSocket");
        ValidateEcho(_ours, "ours, second batch");
        ValidateEcho(_managed, "ManagedWebSocket, second batch");
        Check(OursCompressAndFrame(), "OursCompressAndFrame");
        Check(ManagedWebSocketSend(), "ManagedWebSocketSend");
        Check(OursDecodeAndInflate(), "OursDecodeAndInflate");
        Check(ManagedWebSocketReceive(), "ManagedWebSocketReceive");
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _ours.ToServer.Writer.Complete();
        _managed.ToServer.Writer.Complete();
        _connection.Dispose();
        _managedServer.Dispose();
        Task.WaitAll([_oursLoop, _managedLoop], TimeSpan.FromSeconds(5));
        _sender.Dispose();
        _receiver.Dispose();
        _deflater.Dispose();
        _inflater.Dispose();
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Messages)]
    public Task<long> ManagedWebSocketEcho() => RoundTripAsync(_managed, null);

    [Benchmark(OperationsPerInvoke = Messages)]
    public Task<long> OursEcho() => RoundTripAsync(_ours, null);

    /// <summary>Compress + frame (a server's message: unmasked, RSV1), into a reused buffer.</summary>
    [Benchmark(OperationsPerInvoke = Messages)]
    public long OursCompressAndFrame()
    {
        _wire.ResetWrittenCount();
        foreach (byte[] message in _messages)
        {
            _compressed.ResetWrittenCount();
            _deflater.Compress(message, _compressed);
            _encoder.Write(_wire, WebSocketOpcode.Text, _compressed.WrittenSpan, fin: true, rsv: 4);
        }

        return _wire.WrittenCount;
    }

    [Benchmark(OperationsPerInvoke = Messages)]
    public long ManagedWebSocketSend()
    {
        long total = 0;
        foreach (byte[] message in _messages)
        {
            ValueTask send = _sender.SendAsync(message.AsMemory(), WebSocketMessageType.Text, true, default);
            if (!send.IsCompletedSuccessfully)
            {
                send.AsTask().GetAwaiter().GetResult();
            }

            total += message.Length;
        }

        return total;
    }

    /// <summary>Decode + unmask in place + inflate the client's batch (copied first: unmasking changes it).</summary>
    [Benchmark(OperationsPerInvoke = Messages)]
    public long OursDecodeAndInflate()
    {
        _batch.CopyTo(_work, 0);
        Span<byte> input = _work;
        long total = 0;
        while (!input.IsEmpty)
        {
            if (_decoder.ReadFrame(input, out FrameHeader header, out Span<byte> payload, out _) != OperationStatus.Done)
            {
                throw new InvalidOperationException(_decoder.Violation.Describe());
            }

            _inflated.ResetWrittenCount();
            long inflated = 0;
            if (!_inflater.Inflate(payload, header.Fin, _inflated, InflateLimit, ref inflated))
            {
                throw new InvalidOperationException("Inflating passed the limit.");
            }

            total += inflated;
            input = input.Slice((int)header.FrameLength);
        }

        return total;
    }

    [Benchmark(OperationsPerInvoke = Messages)]
    public long ManagedWebSocketReceive()
    {
        long total = 0;
        for (int i = 0; i < Messages; i++)
        {
            ValueTask<ValueWebSocketReceiveResult> receive = _receiver.ReceiveAsync(_receiveBuffer.AsMemory(), default);
            ValueWebSocketReceiveResult result = receive.IsCompletedSuccessfully ? receive.Result : receive.AsTask().GetAwaiter().GetResult();
            if (!result.EndOfMessage)
            {
                throw new InvalidOperationException("A message did not fit the receive buffer.");
            }

            total += result.Count;
        }

        return total;
    }

    private void Check(long actual, string name)
    {
        long expected = name is "OursCompressAndFrame" ? actual : (long)Messages * PayloadLength;
        if (actual != expected || actual == 0)
        {
            throw new InvalidOperationException($"{name}: {actual} bytes, expected {expected}.");
        }
    }

    /// <summary>The client's messages as masked, compressed text frames (RSV1), compressed as a client would.</summary>
    private static byte[] ClientFrames(byte[][] messages, bool contextTakeover)
    {
        using var deflater = new MessageDeflater(ManagedWebSocketLevel, contextTakeover);
        var encoder = new FrameEncoder(WebSocketRole.Client);
        var compressed = new ArrayBufferWriter<byte>();
        var wire = new ArrayBufferWriter<byte>();
        foreach (byte[] message in messages)
        {
            compressed.ResetWrittenCount();
            deflater.Compress(message, compressed);
            encoder.Write(wire, WebSocketOpcode.Text, compressed.WrittenSpan, fin: true, rsv: 4);
        }

        return wire.WrittenSpan.ToArray();
    }

    /// <summary>One round trip, keeping the echoes, inflated as a client would and compared with the messages.</summary>
    private void ValidateEcho(Transport transport, string name)
    {
        var received = new ArrayBufferWriter<byte>();
        RoundTripAsync(transport, received).GetAwaiter().GetResult();
        transport.ClientInflater ??= new MessageInflater(ContextTakeover);
        var decoder = new FrameDecoder(WebSocketRole.Client, new FrameDecoderOptions { PerMessageDeflate = true });
        Span<byte> input = received.WrittenSpan.ToArray();
        var message = new ArrayBufferWriter<byte>();
        int index = 0;
        while (!input.IsEmpty)
        {
            if (decoder.ReadFrame(input, out FrameHeader header, out Span<byte> payload, out _) != OperationStatus.Done)
            {
                throw new InvalidOperationException($"{name}: {decoder.Violation.Describe()}");
            }

            long inflated = message.WrittenCount;
            if (header.Rsv != 4 && header.Opcode != WebSocketOpcode.Continuation)
            {
                throw new InvalidOperationException($"{name}: an echo went uncompressed.");
            }

            transport.ClientInflater.Inflate(payload, header.Fin, message, InflateLimit, ref inflated);
            if (header.Fin)
            {
                if (index >= Messages || !message.WrittenSpan.SequenceEqual(_messages[index]))
                {
                    throw new InvalidOperationException($"{name}: echo {index} differs from the message sent ({message.WrittenCount} bytes '{System.Text.Encoding.ASCII.GetString(message.WrittenSpan[..Math.Min(80, message.WrittenCount)])}', sent {_messages[Math.Min(index, Messages - 1)].Length}; wire {Convert.ToHexString(received.WrittenSpan[..Math.Min(40, received.WrittenCount)])}, batch {Convert.ToHexString(_batch.AsSpan(0, 40))}).");
                }

                index++;
                message.ResetWrittenCount();
            }

            input = input.Slice((int)header.FrameLength);
        }

        if (index != Messages)
        {
            throw new InvalidOperationException($"{name}: {index} echoes for {Messages} messages.");
        }
    }

    private async Task<long> RoundTripAsync(Transport transport, ArrayBufferWriter<byte>? keep)
    {
        // One round trip at a time (BenchmarkDotNet's execution validator may overlap operations).
        await transport.Turn.WaitAsync();
        try
        {
            await transport.ToServer.Writer.WriteAsync(_batch);
            PipeReader reader = transport.ToClient.Reader;
            var count = new EchoCount();
            while (!count.Done)
            {
                ReadResult result = await reader.ReadAsync();
                SequencePosition consumed = count.Parse(result.Buffer);
                if (keep is not null)
                {
                    foreach (ReadOnlyMemory<byte> segment in result.Buffer.Slice(0, consumed))
                    {
                        keep.Write(segment.Span);
                    }
                }

                reader.AdvanceTo(consumed, result.Buffer.End);
                if (result.IsCompleted && !count.Done)
                {
                    throw new InvalidOperationException("The server ended the echo early.");
                }
            }

            return count.Bytes;
        }
        finally
        {
            transport.Turn.Release();
        }
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

    /// <summary>Counts the echoed messages (final frames) of one batch across reads, by their headers.</summary>
    private struct EchoCount
    {
        private long _skip;
        private int _messages;

        public long Bytes { get; private set; }

        public readonly bool Done => _messages == Messages && _skip == 0;

        public SequencePosition Parse(ReadOnlySequence<byte> buffer)
        {
            var reader = new SequenceReader<byte>(buffer);
            Span<byte> header = stackalloc byte[14];
            while (true)
            {
                if (_skip > 0)
                {
                    long step = Math.Min(_skip, reader.Remaining);
                    reader.Advance(step);
                    _skip -= step;
                    if (_skip > 0)
                    {
                        break;
                    }
                }

                if (Done || !reader.TryCopyTo(header[..2]))
                {
                    break;
                }

                int length7 = header[1] & 0x7F;
                int headerLength = 2 + (length7 == 126 ? 2 : length7 == 127 ? 8 : 0) + ((header[1] & 0x80) != 0 ? 4 : 0);
                if (!reader.TryCopyTo(header[..headerLength]))
                {
                    break;
                }

                long length = length7 switch
                {
                    126 => System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(header[2..]),
                    127 => System.Buffers.Binary.BinaryPrimitives.ReadInt64BigEndian(header[2..]),
                    _ => length7,
                };
                if ((header[0] & 0x80) != 0)
                {
                    _messages++;
                }

                reader.Advance(headerLength);
                Bytes += headerLength + length;
                _skip = length;
            }

            return reader.Position;
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

        /// <summary>The validating client's inflater (its context spans the validation round trips).</summary>
        public MessageInflater? ClientInflater { get; set; }

        public IDuplexPipe Server => new Duplex(ToServer.Reader, ToClient.Writer);

        private sealed class Duplex(PipeReader input, PipeWriter output) : IDuplexPipe
        {
            public PipeReader Input { get; } = input;

            public PipeWriter Output { get; } = output;
        }
    }
}
