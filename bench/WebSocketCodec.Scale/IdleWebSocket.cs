using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Net;
using System.Net.Sockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Scale;

/// <summary>
/// One mostly idle websocket of the load: a socket bound to a chosen source address, our client's HTTP/1.1 handshake
/// (<see cref="WebSocketClient.HandshakeAsync"/>) over a <see cref="StreamTransport"/>, then batches of masked binary
/// messages whose echoes it times. It reads frames masked or not, so a byte echo (<c>raw-upgrade</c>, which returns the
/// client's masked frames) counts the same as a websocket echo; it answers Pings and closes with a Close exchange.
/// Every message's payload starts with its send time (8 bytes) and its number on this websocket (4 bytes).
/// </summary>
internal sealed class IdleWebSocket
{
    private const int StampLength = 12;
    private static readonly byte[] Filler = CreateFiller();
    private readonly Socket _socket;
    private readonly StreamTransport _pipe;
    private readonly SemaphoreSlim _writing = new(1, 1);
    private readonly LoadStats _stats;
    private int _sent;
    private int _received;
    private volatile bool _closing;
    private volatile bool _closeReceived;

    private IdleWebSocket(Socket socket, StreamTransport pipe, LoadStats stats)
    {
        _socket = socket;
        _pipe = pipe;
        _stats = stats;
    }

    /// <summary>Messages sent so far.</summary>
    public int Sent => Volatile.Read(ref _sent);

    /// <summary>Echoes received so far.</summary>
    public int Received => Volatile.Read(ref _received);

    /// <summary>Whether a Close frame (the server's, or a byte echo of ours) arrived.</summary>
    public bool CloseReceived => _closeReceived;

    /// <summary>The read loop, running once connected.</summary>
    public Task Reading { get; private set; } = Task.CompletedTask;

    /// <summary>Connects from <paramref name="source"/> and runs the handshake; records its time (connect included) in
    /// <paramref name="stats"/>, or the failure's reason, and returns null on failure.</summary>
    public static async Task<IdleWebSocket?> ConnectAsync(IPAddress source, IPEndPoint server, LoadStats stats, TimeSpan timeout, string path = "/")
    {
        long start = Stopwatch.GetTimestamp();
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        using var deadline = new CancellationTokenSource(timeout);
        StreamTransport? pipe = null;
        try
        {
            SourceAddresses.BindWithoutPort(socket, source);
            await socket.ConnectAsync(server, deadline.Token);
            pipe = new StreamTransport(new NetworkStream(socket, ownsSocket: true), bufferSize: 4096);
            var uri = new Uri($"ws://{server}{path}");
            await WebSocketClient.HandshakeAsync(pipe, uri, WebSocketClientOptions.Default, deadline.Token);
            stats.RecordHandshake(Stopwatch.GetElapsedTime(start));
            var webSocket = new IdleWebSocket(socket, pipe, stats);
            webSocket.Reading = webSocket.ReadAsync();
            return webSocket;
        }
        catch (Exception error)
        {
            stats.Fail(Reason(error, connecting: pipe is null));
            socket.Dispose();
            return null;
        }
    }

    /// <summary>Sends a batch every <paramref name="minInterval"/>..<paramref name="maxInterval"/> (the first after a
    /// random part of one interval) until <paramref name="stop"/>: 5-10 binary messages of 200-500 bytes, one flush.</summary>
    public async Task SendBatchesAsync(Random random, TimeSpan minInterval, TimeSpan maxInterval, CancellationToken stop)
    {
        try
        {
            await Task.Delay(random.NextDouble() * Interval(random, minInterval, maxInterval), stop);
            while (!stop.IsCancellationRequested && !_closing)
            {
                await SendBatchAsync(random);
                await Task.Delay(Interval(random, minInterval, maxInterval), stop);
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // The hold is over.
        }
        catch (Exception error)
        {
            _stats.Fail("send: " + Reason(error, connecting: false));
        }
    }

    /// <summary>Sends one batch of 5-10 messages of 200-500 bytes with one flush.</summary>
    public async Task SendBatchAsync(Random random)
    {
        int count = random.Next(5, 11);
        await _writing.WaitAsync();
        try
        {
            PipeWriter output = _pipe.Output;
            for (int i = 0; i < count; i++)
            {
                int length = random.Next(200, 501);
                Span<byte> frame = output.GetSpan(length + 8);
                int header = WriteHeader(frame, WebSocketOpcode.Binary, length, out int maskKey);
                Span<byte> payload = frame.Slice(header, length);
                Filler.AsSpan(0, length).CopyTo(payload);
                BinaryPrimitives.WriteInt64LittleEndian(payload, Stopwatch.GetTimestamp());
                BinaryPrimitives.WriteInt32LittleEndian(payload[8..], _sent + i);
                WebSocketMask.Apply(payload, maskKey);
                output.Advance(header + length);
            }

            Interlocked.Add(ref _sent, count);
            _stats.AddBatch(count);
            await output.FlushAsync();
        }
        finally
        {
            _writing.Release();
        }
    }

    /// <summary>Sends Close (1000) and waits, up to <paramref name="timeout"/>, for the answering Close; then closes the
    /// connection. Returns whether the exchange completed.</summary>
    public async Task<bool> CloseAsync(TimeSpan timeout)
    {
        _closing = true;
        try
        {
            await SendControlAsync(WebSocketOpcode.Close, [0x03, 0xE8]);
            await Reading.WaitAsync(timeout);
        }
        catch (Exception error)
        {
            _stats.Fail("close: " + Reason(error, connecting: false));
        }
        finally
        {
            Abort();
        }

        return _closeReceived;
    }

    /// <summary>Closes the connection without a Close exchange.</summary>
    public void Abort()
    {
        _closing = true;
        _socket.Dispose();
    }

    private async Task ReadAsync()
    {
        await Task.Yield();
        PipeReader input = _pipe.Input;
        try
        {
            while (true)
            {
                ReadResult result = await input.ReadAsync();
                ReadOnlySequence<byte> buffer = result.Buffer;
                OperationStatus status;
                while ((status = FrameHeaderReader.Read(buffer, 1 << 20, out FrameHeader header, out _, out ProtocolViolation violation)) == OperationStatus.Done
                    && buffer.Length >= header.FrameLength)
                {
                    ReadOnlySequence<byte> payload = buffer.Slice(header.HeaderLength, header.PayloadLength);
                    OnFrame(header, payload);
                    buffer = buffer.Slice(header.FrameLength);
                }

                input.AdvanceTo(buffer.Start, buffer.End);
                if (status == OperationStatus.InvalidData)
                {
                    _stats.Fail("protocol violation from the server");
                    return;
                }

                if (_closeReceived)
                {
                    return;
                }

                if (result.IsCompleted)
                {
                    _stats.Fail(_closing ? "close: connection ended before the Close" : "closed by the server while open");
                    return;
                }
            }
        }
        catch (Exception error) when (!_closing || error is not (ObjectDisposedException or IOException or SocketException))
        {
            _stats.Fail("receive: " + Reason(error, connecting: false));
        }
        catch (Exception)
        {
            // Our own Abort during the close.
        }
        finally
        {
            await input.CompleteAsync();
        }
    }

    private void OnFrame(in FrameHeader header, ReadOnlySequence<byte> payload)
    {
        switch (header.Opcode)
        {
            case WebSocketOpcode.Binary when payload.Length >= StampLength:
                Span<byte> stamp = stackalloc byte[StampLength];
                payload.Slice(0, StampLength).CopyTo(stamp);
                if (header.IsMasked)
                {
                    WebSocketMask.Apply(stamp, header.MaskKey);
                }

                long sentAt = BinaryPrimitives.ReadInt64LittleEndian(stamp);
                int number = BinaryPrimitives.ReadInt32LittleEndian(stamp[8..]);
                if (number != _received)
                {
                    _stats.Fail("echo out of order or corrupted");
                }

                Interlocked.Increment(ref _received);
                _stats.RecordRoundTrip(Stopwatch.GetElapsedTime(sentAt));
                break;
            case WebSocketOpcode.Ping:
                byte[] data = payload.ToArray();
                if (header.IsMasked)
                {
                    WebSocketMask.Apply(data, header.MaskKey);
                }

                _ = SendControlAsync(WebSocketOpcode.Pong, data);
                break;
            case WebSocketOpcode.Close:
                _closeReceived = true;
                break;
            case WebSocketOpcode.Pong:
                break;
            default:
                _stats.Fail($"unexpected {header.Opcode} frame of {header.PayloadLength} B");
                break;
        }
    }

    private async Task SendControlAsync(WebSocketOpcode opcode, byte[] data)
    {
        await _writing.WaitAsync();
        try
        {
            Span<byte> frame = _pipe.Output.GetSpan(data.Length + 14);
            int header = WriteHeader(frame, opcode, data.Length, out int maskKey);
            WebSocketMask.Apply(data, frame.Slice(header, data.Length), maskKey);
            _pipe.Output.Advance(header + data.Length);
            await _pipe.Output.FlushAsync();
        }
        finally
        {
            _writing.Release();
        }
    }

    private static int WriteHeader(Span<byte> destination, WebSocketOpcode opcode, int length, out int maskKey)
    {
        maskKey = Random.Shared.Next() | 1;
        return FrameHeaderWriter.Write(destination, fin: true, rsv: 0, opcode, length, masked: true, maskKey);
    }

    private static TimeSpan Interval(Random random, TimeSpan min, TimeSpan max) =>
        min + (random.NextDouble() * (max - min));

    /// <summary>A failure's reason, short and without per-connection details, so failures group.</summary>
    internal static string Reason(Exception error, bool connecting) => error switch
    {
        SocketException socket => $"{(connecting ? "connect" : "socket")}: {socket.SocketErrorCode}",
        OperationCanceledException or TimeoutException => connecting ? "connect timeout" : "timeout",
        WebSocketHandshakeException { StatusCode: { } code } => $"handshake: HTTP {code}",
        WebSocketHandshakeException { InnerException: SocketException socket } => $"handshake: {socket.SocketErrorCode}",
        WebSocketHandshakeException handshake => "handshake: " + handshake.Message.Split(':', '(')[0].Trim(),
        IOException { InnerException: SocketException socket } => $"io: {socket.SocketErrorCode}",
        _ => error.GetType().Name,
    };

    private static byte[] CreateFiller()
    {
        byte[] filler = new byte[512];
        new Random(512).NextBytes(filler);
        return filler;
    }
}
