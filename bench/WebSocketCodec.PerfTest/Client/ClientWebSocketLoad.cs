using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.WebSockets;
using HdrHistogram;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// The load as most .NET clients produce it: a <see cref="ClientWebSocket"/> (<c>ManagedWebSocket</c>) sending one
/// binary message per <c>SendAsync</c>, with the same window refilled at half and the same 8-byte send time in front
/// of the payload. It needs a websocket server (a byte echo's masked frames are a protocol error to it).
/// </summary>
internal sealed class ClientWebSocketLoad : ILoadConnection
{
    private readonly ClientWebSocket _socket;
    private readonly byte[] _message;
    private readonly int _window;
    private readonly SemaphoreSlim _refill = new(0);
    private int _inFlight;
    private long _received;
    private volatile bool _measuring;
    private volatile bool _stopped;
    private Task? _sending;
    private Task? _receiving;

    private ClientWebSocketLoad(ClientWebSocket socket, int payload, int window)
    {
        _socket = socket;
        _message = new byte[Math.Max(payload, 8)];
        _window = window;
    }

    public LongHistogram Latency { get; } = LatencyRecording.Create();

    public long Received => Interlocked.Read(ref _received);

    private long _echoed;

    public long Echoed => Interlocked.Read(ref _echoed);

    public bool Measuring
    {
        get => _measuring;
        set => _measuring = value;
    }

    public bool Ended => _receiving?.IsCompleted == true;

    public string State => $"send {_sending?.Status}, receive {_receiving?.Status}, in flight {Volatile.Read(ref _inFlight)}, {_socket.State}";

    /// <summary>Opens the websocket over HTTP/1.1, or over HTTP/2 through <paramref name="invoker"/> (extended
    /// CONNECT, every websocket a stream of its one connection).</summary>
    public static async Task<ClientWebSocketLoad> OpenAsync(
        IPEndPoint server, bool tls, bool http2, HttpMessageInvoker? invoker, int payload, int window, CancellationToken cancellationToken)
    {
        var socket = new ClientWebSocket();
        socket.Options.KeepAliveInterval = TimeSpan.Zero;
        var uri = new Uri($"{(tls ? "wss" : "ws")}://127.0.0.1:{server.Port}/");
        if (http2)
        {
            socket.Options.HttpVersion = HttpVersion.Version20;
            socket.Options.HttpVersionPolicy = HttpVersionPolicy.RequestVersionExact;
            await socket.ConnectAsync(uri, invoker, cancellationToken);
        }
        else
        {
            if (tls)
            {
                socket.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
            }

            await socket.ConnectAsync(uri, cancellationToken);
        }

        return new ClientWebSocketLoad(socket, payload, window);
    }

    public Task RunAsync(CancellationToken cancellationToken)
    {
        _sending = Task.Run(() => SendLoopAsync(cancellationToken), CancellationToken.None);
        _receiving = Task.Run(() => ReceiveLoopAsync(cancellationToken), CancellationToken.None);
        return Task.WhenAll(_sending, _receiving);
    }

    private async Task SendLoopAsync(CancellationToken cancellationToken)
    {
        int toSend = _window;
        try
        {
            while (!cancellationToken.IsCancellationRequested)
            {
                BinaryPrimitives.WriteInt64LittleEndian(_message, Stopwatch.GetTimestamp());
                Interlocked.Add(ref _inFlight, toSend);
                for (int i = 0; i < toSend; i++)
                {
                    await _socket.SendAsync(_message.AsMemory(), WebSocketMessageType.Binary, endOfMessage: true, cancellationToken);
                }

                while (!await _refill.WaitAsync(50, CancellationToken.None))
                {
                    if (_stopped || cancellationToken.IsCancellationRequested)
                    {
                        return;
                    }
                }

                toSend = _window - Volatile.Read(ref _inFlight);
            }
        }
        catch (Exception error) when (error is OperationCanceledException or WebSocketException or ObjectDisposedException or IOException)
        {
        }
    }

    private async Task ReceiveLoopAsync(CancellationToken cancellationToken)
    {
        byte[] buffer = new byte[Math.Max(_message.Length, 64 * 1024)];
        try
        {
            while (!cancellationToken.IsCancellationRequested)
            {
                int length = 0;
                ValueWebSocketReceiveResult result;
                do
                {
                    result = await _socket.ReceiveAsync(buffer.AsMemory(length), cancellationToken);
                    length += result.Count;
                }
                while (!result.EndOfMessage && result.MessageType != WebSocketMessageType.Close);

                if (result.MessageType == WebSocketMessageType.Close)
                {
                    return;
                }

                if (length != _message.Length)
                {
                    throw new InvalidDataException($"An echo of {length} bytes came back for {_message.Length}.");
                }

                Interlocked.Increment(ref _echoed);
                if (_measuring)
                {
                    long sent = BinaryPrimitives.ReadInt64LittleEndian(buffer);
                    LatencyRecording.Record(Latency, (long)((Stopwatch.GetTimestamp() - sent) * (1_000_000_000.0 / Stopwatch.Frequency)));
                    Interlocked.Increment(ref _received);
                }

                int left = Interlocked.Decrement(ref _inFlight);
                if (left == _window / 2)
                {
                    _refill.Release();
                }
            }
        }
        catch (Exception error) when (error is OperationCanceledException or WebSocketException or ObjectDisposedException or IOException)
        {
        }
    }

    public ValueTask DisposeAsync()
    {
        _stopped = true;
        _socket.Abort();
        _socket.Dispose();
        return ValueTask.CompletedTask;
    }
}
