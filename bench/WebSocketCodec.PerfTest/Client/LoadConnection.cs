using System.Buffers;
using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Text;
using HdrHistogram;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// One pipelined client connection: a window of masked binary frames in flight (payload = 8-byte send timestamp +
/// filler), refilled in one write once half has come back; every echo's latency goes into a histogram. It only counts
/// frames (masked or not, so the raw byte echoes count too) and checks their lengths. With permessage-deflate
/// (<see cref="DeflateMode"/>) every frame is the same JSON text compressed once per connection (RSV1); the replies are
/// counted by their final frames and wire bytes, not inflated, and no latency is recorded (the timestamp is inside the
/// compressed bytes).
/// </summary>
internal sealed class LoadConnection : ILoadConnection
{
    private static readonly byte[] MaskKey = [0x37, 0xFA, 0x21, 0x3D];
    private readonly Stream _stream;
    private readonly Socket? _socket;
    private readonly int _payload;
    private readonly int _window;
    private readonly SemaphoreSlim _refill = new(0);
    private readonly byte[] _frames;
    private readonly int _frameLength;
    private readonly CompressedFrames? _compressed; // deflate mode: the messages as sent
    private int _next; // deflate mode: the next of them to send
    private int _inFlight;
    private volatile bool _measuring;
    private long _wireBytesReceived;
    private long _compressedReplies;
    private byte[]? _buffer; // received bytes not parsed yet (kept from priming to the receive loop)
    private int _buffered;
    private bool _priming; // PrimeAsync: finals count toward _primed, not the window
    private int _primed;

    private LoadConnection(Socket? socket, Stream stream, int payload, int window, bool deflate = false)
    {
        _socket = socket;
        _stream = stream;
        _payload = Math.Max(payload, 8);
        _window = window;
        _frameLength = 2 + (_payload > 125 ? 2 : 0) + 4 + _payload;
        _compressed = deflate ? CompressedFrames.For(_payload, window, MaskKey) : null;
        _frames = deflate ? [] : new byte[_frameLength * window];
    }

    /// <summary>Deflate mode: the mean bytes of one message's frame as sent (header, key, compressed payload).</summary>
    public double FrameLength => _compressed?.AverageFrameLength ?? _frameLength;

    /// <summary>Deflate mode: the wire bytes of the replies received while measuring (headers included).</summary>
    public long WireBytesReceived => Interlocked.Read(ref _wireBytesReceived);

    /// <summary>Deflate mode: replies received while measuring that came compressed (RSV1).</summary>
    public long CompressedReplies => Interlocked.Read(ref _compressedReplies);

    public LongHistogram Latency { get; } = LatencyRecording.Create();

    private long _received;

    public long Received => Interlocked.Read(ref _received);

    private long _echoed;

    public long Echoed => Interlocked.Read(ref _echoed);

    /// <summary>
    /// Deflate mode, before <see cref="RunAsync"/>: sends <paramref name="messages"/> compressed messages, in rounds of
    /// at most a window, each round's replies awaited, so that the server's inflater and deflater for this websocket
    /// exist (zlib state is made on a websocket's first compressed message each way). Counts nothing as measured.
    /// </summary>
    public async Task PrimeAsync(int messages, CancellationToken cancellationToken)
    {
        CompressedFrames compressed = _compressed ?? throw new InvalidOperationException("Priming is for deflate mode.");
        byte[] buffer = Buffer();
        _priming = true;
        for (int sent = 0; sent < messages;)
        {
            // Rounds of at most a window (one contiguous run of the pool), each waited for.
            int round = Math.Min(_window, messages - sent);
            _primed = 0;
            int start = compressed.Offsets[_next];
            await _stream.WriteAsync(compressed.Wire.AsMemory(start, compressed.Offsets[_next + round] - start), cancellationToken);
            _next = (_next + round) % compressed.Count;
            while (_primed < round)
            {
                int read = await _stream.ReadAsync(buffer.AsMemory(_buffered), cancellationToken);
                if (read == 0)
                {
                    throw new IOException($"The server closed a websocket after {sent + _primed} of {messages} priming replies.");
                }

                Consume(buffer, read);
            }

            sent += round;
        }

        _priming = false;
    }

    /// <summary>The receive buffer. Deflate mode may hold thousands of websockets in this process (the memory table):
    /// room for the window's replies, at most a 1 KiB-JSON message's frame each uncompressed.</summary>
    private byte[] Buffer() => _buffer ??= new byte[_compressed is null ? 256 * 1024 : Math.Clamp(2 * _window * (_payload + 14), 4 * 1024, 256 * 1024)];

    /// <summary>Parses the whole frames among the buffered bytes plus <paramref name="read"/> new ones and keeps the
    /// rest at the start of <paramref name="buffer"/>.</summary>
    private void Consume(byte[] buffer, int read)
    {
        _buffered += read;
        int consumed = Parse(buffer.AsSpan(0, _buffered));
        buffer.AsSpan(consumed, _buffered - consumed).CopyTo(buffer);
        _buffered -= consumed;
    }

    public static async Task<LoadConnection> OpenAsync(IPEndPoint server, bool tls, int payload, int window, CancellationToken cancellationToken) =>
        await OpenAsync(server, tls, payload, window, deflate: null, cancellationToken);

    /// <summary>Opens a websocket over HTTP/1.1; with <paramref name="deflate"/> (context takeover or not) it offers
    /// permessage-deflate, requires it in the answer, and sends compressed JSON.</summary>
    public static async Task<LoadConnection> OpenAsync(IPEndPoint server, bool tls, int payload, int window, bool? deflate, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(server, cancellationToken);
        Stream stream = new NetworkStream(socket, ownsSocket: false);
        if (tls)
        {
            var ssl = new SslStream(stream);
            await ssl.AuthenticateAsClientAsync(new SslClientAuthenticationOptions
            {
                TargetHost = "localhost",
                RemoteCertificateValidationCallback = (_, _, _, _) => true,
            }, cancellationToken);
            stream = ssl;
        }

        string request = $"GET / HTTP/1.1\r\nHost: 127.0.0.1:{server.Port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
            "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
            (deflate is { } takeover ? $"Sec-WebSocket-Extensions: {DeflateMode.Offer(takeover)}\r\n" : "") + "\r\n";
        await stream.WriteAsync(Encoding.ASCII.GetBytes(request), cancellationToken);
        var head = new List<byte>();
        // Deflate mode reads the 101 in chunks (thousands of handshakes for the memory table): the servers send nothing
        // after it until a message comes, so a read cannot take a frame's bytes with the head; else byte by byte.
        byte[] one = new byte[deflate is null ? 1 : 1024];
        while (!(head.Count >= 4 && head[^4] == '\r' && head[^3] == '\n' && head[^2] == '\r' && head[^1] == '\n'))
        {
            int got = await stream.ReadAsync(one, cancellationToken);
            if (got == 0)
            {
                throw new IOException("The server closed the connection during the handshake.");
            }

            head.AddRange(one.AsSpan(0, got));
        }

        string status = Encoding.ASCII.GetString([.. head]);
        if (!status.StartsWith("HTTP/1.1 101", StringComparison.Ordinal))
        {
            throw new IOException("The server refused the websocket: " + status.Split('\r')[0]);
        }

        if (deflate is not null)
        {
            if (!status.Contains("permessage-deflate", StringComparison.OrdinalIgnoreCase))
            {
                throw new IOException("The server did not accept permessage-deflate: " + status.Replace("\r\n", " | ", StringComparison.Ordinal));
            }

            if (deflate == false && !status.Contains("server_no_context_takeover", StringComparison.OrdinalIgnoreCase))
            {
                throw new IOException("The server did not take server_no_context_takeover: " + status.Replace("\r\n", " | ", StringComparison.Ordinal));
            }

            return new LoadConnection(socket, stream, payload, window, deflate: true);
        }

        return new LoadConnection(socket, stream, payload, window);
    }

    /// <summary>Opens a websocket as an HTTP/2 extended CONNECT stream on <paramref name="invoker"/>'s connection.</summary>
    public static async Task<LoadConnection> OpenHttp2Async(
        HttpMessageInvoker invoker, IPEndPoint server, bool tls, int payload, int window, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Connect, $"{(tls ? "https" : "http")}://127.0.0.1:{server.Port}/")
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        request.Headers.Protocol = "websocket";
        request.Headers.TryAddWithoutValidation("sec-websocket-version", "13");
        HttpResponseMessage response = await invoker.SendAsync(request, cancellationToken);
        if (response.StatusCode != HttpStatusCode.OK)
        {
            throw new IOException($"The server refused the websocket over HTTP/2: {(int)response.StatusCode}");
        }

        Stream stream = await response.Content.ReadAsStreamAsync(cancellationToken);
        return new LoadConnection(null, stream, payload, window);
    }

    /// <summary>Whether echoes count toward <see cref="Received"/> and <see cref="Latency"/>.</summary>
    public bool Measuring
    {
        get => _measuring;
        set => _measuring = value;
    }

    private Task? _sending;
    private Task? _receiving;

    private volatile bool _stopped;
    private volatile string _stage = "starting";

    public bool Ended => _receiving?.IsCompleted == true;

    public string State => $"send {_sending?.Status} ({_stage}), receive {_receiving?.Status}, in flight {Volatile.Read(ref _inFlight)}";

    public Task RunAsync(CancellationToken cancellationToken)
    {
        _sending = Task.Run(() => SendLoopAsync(cancellationToken), CancellationToken.None);
        _receiving = Task.Run(() => ReceiveLoopAsync(cancellationToken), CancellationToken.None);
        return Task.WhenAll(_sending, _receiving);
    }

    private async Task SendLoopAsync(CancellationToken cancellationToken)
    {
        // The frame template: FIN + binary, masked with a fixed non-zero key (no codec may take a zero-key shortcut);
        // the filler is zeros, masked once here; only the timestamp is written (masked) per send.
        for (int i = 0; i < _window && _compressed is null; i++)
        {
            Span<byte> frame = _frames.AsSpan(i * _frameLength, _frameLength);
            frame[0] = 0x82;
            int offset;
            if (_payload > 125)
            {
                frame[1] = 0x80 | 126;
                BinaryPrimitives.WriteUInt16BigEndian(frame[2..], (ushort)_payload);
                offset = 4;
            }
            else
            {
                frame[1] = (byte)(0x80 | _payload);
                offset = 2;
            }

            MaskKey.CopyTo(frame.Slice(offset, 4));
            Span<byte> payload = frame[(offset + 4)..];
            for (int b = 0; b < payload.Length; b++)
            {
                payload[b] = MaskKey[b & 3];
            }
        }

        int toSend = _window;
        try
        {
            while (!cancellationToken.IsCancellationRequested)
            {
                Interlocked.Add(ref _inFlight, toSend);
                _stage = "writing";
                if (_compressed is { } compressed)
                {
                    // The next toSend different messages, one contiguous run (the pool repeats its first window).
                    int start = compressed.Offsets[_next];
                    await _stream.WriteAsync(compressed.Wire.AsMemory(start, compressed.Offsets[_next + toSend] - start), cancellationToken);
                    _next = (_next + toSend) % compressed.Count;
                }
                else
                {
                    Stamp(toSend);
                    await _stream.WriteAsync(_frames.AsMemory(0, toSend * _frameLength), cancellationToken);
                }

                await _stream.FlushAsync(cancellationToken); // an HTTP/2 request stream sends on flush
                _stage = "waiting";
                if (_compressed is not null)
                {
                    // Deflate mode, thousands of websockets with round trips of seconds: no polling timer per wait
                    // (a 50 ms poll each was 200,000 timer callbacks a second at 10,000 websockets, and bound the load).
                    await _refill.WaitAsync(cancellationToken);
                }
                else
                {
                    while (!await _refill.WaitAsync(50, CancellationToken.None))
                    {
                        if (_stopped || cancellationToken.IsCancellationRequested)
                        {
                            return;
                        }
                    }
                }

                toSend = _window - Volatile.Read(ref _inFlight);
            }
        }
        catch (Exception error) when (error is OperationCanceledException or IOException or ObjectDisposedException)
        {
        }
    }

    /// <summary>Writes the send time, masked, into the first <paramref name="count"/> frames.</summary>
    private void Stamp(int count)
    {
        Span<byte> stamp = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(stamp, Stopwatch.GetTimestamp());
        for (int b = 0; b < 8; b++)
        {
            stamp[b] ^= MaskKey[b & 3];
        }

        for (int i = 0; i < count; i++)
        {
            stamp.CopyTo(_frames.AsSpan((i * _frameLength) + _frameLength - _payload));
        }
    }

    private async Task ReceiveLoopAsync(CancellationToken cancellationToken)
    {
        byte[] buffer = Buffer();
        try
        {
            while (!cancellationToken.IsCancellationRequested)
            {
                int read = await _stream.ReadAsync(buffer.AsMemory(_buffered), cancellationToken);
                if (read == 0)
                {
                    return;
                }

                Consume(buffer, read);
            }
        }
        catch (Exception error) when (error is OperationCanceledException or IOException or ObjectDisposedException)
        {
        }
    }

    private int Parse(ReadOnlySpan<byte> data)
    {
        int consumed = 0;
        int frames = 0;
        long wireBytes = 0;
        long compressed = 0;
        long now = Stopwatch.GetTimestamp();
        bool measuring = _measuring;
        Span<byte> stamp = stackalloc byte[8];
        while (data.Length - consumed >= 2)
        {
            ReadOnlySpan<byte> frame = data[consumed..];
            bool masked = (frame[1] & 0x80) != 0;
            int length = frame[1] & 0x7F;
            int header = 2;
            if (length == 126)
            {
                if (frame.Length < 4)
                {
                    break;
                }

                length = BinaryPrimitives.ReadUInt16BigEndian(frame[2..]);
                header = 4;
            }
            else if (length == 127)
            {
                throw new InvalidDataException("The perf client does not expect 64-bit lengths.");
            }

            header += masked ? 4 : 0;
            if (frame.Length < header + length)
            {
                break;
            }

            if (_compressed is not null)
            {
                // A reply of a compressed message: counted by its final frame and wire bytes, not inflated.
                consumed += header + length;
                if (measuring)
                {
                    wireBytes += header + length;
                    compressed += (frame[0] & 0x40) != 0 ? 1 : 0;
                }

                frames += (frame[0] & 0x80) != 0 ? 1 : 0;
                continue;
            }

            if (length != _payload)
            {
                throw new InvalidDataException($"An echo of {length} bytes came back for {_payload}.");
            }

            if (measuring)
            {
                frame.Slice(header, 8).CopyTo(stamp);
                if (masked)
                {
                    // A raw echo returns our masked bytes: unmask the timestamp with our key.
                    for (int b = 0; b < 8; b++)
                    {
                        stamp[b] ^= MaskKey[b & 3];
                    }
                }

                long sent = BinaryPrimitives.ReadInt64LittleEndian(stamp);
                LatencyRecording.Record(Latency, (long)((now - sent) * (1_000_000_000.0 / Stopwatch.Frequency)));
            }

            consumed += header + length;
            frames++;
        }

        if (wireBytes > 0)
        {
            Interlocked.Add(ref _wireBytesReceived, wireBytes);
            Interlocked.Add(ref _compressedReplies, compressed);
        }

        if (frames > 0 && _priming)
        {
            _primed += frames;
        }
        else if (frames > 0)
        {
            Interlocked.Add(ref _echoed, frames);
            if (measuring)
            {
                Interlocked.Add(ref _received, frames);
            }

            int left = Interlocked.Add(ref _inFlight, -frames);
            if (left <= _window / 2 && left + frames > _window / 2)
            {
                _refill.Release();
            }
        }

        return consumed;
    }

    public async ValueTask DisposeAsync()
    {
        _stopped = true;
        await _stream.DisposeAsync();
        _socket?.Dispose();
    }
}
