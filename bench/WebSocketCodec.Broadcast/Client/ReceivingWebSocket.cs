using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// One client websocket, as lean as a socket: a fixed HTTP/1.1 upgrade request, then a read loop over one 4 KiB
/// buffer that parses the server's (unmasked) frame headers itself and hands each broadcast's sequence number, stamp
/// and receipt time (taken when the read returned) to <see cref="Deliveries"/>, checking that its own websocket gets
/// them in order. Answers a Ping with a Pong and a Close with a Close. In the burst mode (a <see cref="BurstTally"/>)
/// it also publishes: <see cref="SendBurst"/> sends messages of its own, masked, in one write, and every message the
/// server relays is checked against its sender's order and timed from the sender's stamp.
/// </summary>
internal sealed class ReceivingWebSocket
{
    private static readonly byte[] Request = Encoding.ASCII.GetBytes(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");

    private readonly Socket _socket;
    private readonly Deliveries _deliveries;
    private readonly byte[] _buffer = new byte[4096];
    private readonly BurstTally? _burst;
    private readonly int _index;
    private readonly int[] _nextFrom = []; // burst mode: each sender's next sequence number
    private readonly object _sending = new();
    private long _burstReceived;
    private long _lastReceipt;
    private long _completeAt;
    private int _sequence;
    private int _start;
    private int _end;
    private int _expected;
    private volatile bool _closing;

    private ReceivingWebSocket(Socket socket, Deliveries deliveries, BurstTally? burst, int index)
    {
        _socket = socket;
        _deliveries = deliveries;
        _burst = burst;
        _index = index;
        if (burst is not null)
        {
            _nextFrom = new int[burst.WebSockets];
        }
    }

    /// <summary>Burst mode: relayed messages this websocket received, all bursts.</summary>
    public long BurstReceived => Interlocked.Read(ref _burstReceived);

    /// <summary>Burst mode: when (Stopwatch) it last received one.</summary>
    public long LastReceipt => Interlocked.Read(ref _lastReceipt);

    /// <summary>Burst mode: when (Stopwatch) it had every message of the bursts so far (0 until then).</summary>
    public long CompleteAt => Interlocked.Read(ref _completeAt);

    /// <summary>Burst mode: forgets when it last became complete (call before a burst's first send).</summary>
    public void BeginBurst() => Interlocked.Exchange(ref _completeAt, 0);

    /// <summary>Whether the connection ended (the server's Close, a reset, ...), other than by <see cref="Close"/>.</summary>
    public bool Ended => Reading.IsCompleted && !_closing;

    /// <summary>Burst mode: sends <paramref name="count"/> binary messages of <paramref name="payloadLength"/> bytes in
    /// one write, each masked with a key of its own, stamped with <see cref="Stopwatch.GetTimestamp"/> now.</summary>
    /// <returns>Whether they were sent (false when the connection has ended).</returns>
    public bool SendBurst(int count, int payloadLength)
    {
        int header = payloadLength <= 125 ? 2 : 4;
        int frameLength = header + 4 + payloadLength;
        byte[] frames = new byte[count * frameLength];
        Span<byte> payload = stackalloc byte[payloadLength];
        payload.Clear();
        Span<byte> key = stackalloc byte[4];
        long stamp = Stopwatch.GetTimestamp();
        for (int m = 0; m < count; m++)
        {
            Span<byte> frame = frames.AsSpan(m * frameLength, frameLength);
            frame[0] = 0x82; // FIN + Binary
            if (header == 2)
            {
                frame[1] = (byte)(0x80 | payloadLength);
            }
            else
            {
                frame[1] = 0x80 | 126;
                BinaryPrimitives.WriteUInt16BigEndian(frame[2..], (ushort)payloadLength);
            }

            Random.Shared.NextBytes(key);
            key.CopyTo(frame[header..]);
            BinaryPrimitives.WriteInt64LittleEndian(payload, stamp);
            BinaryPrimitives.WriteInt32LittleEndian(payload[8..], _sequence++);
            BinaryPrimitives.WriteInt32LittleEndian(payload[12..], _index);
            Span<byte> masked = frame[(header + 4)..];
            for (int i = 0; i < payloadLength; i++)
            {
                masked[i] = (byte)(payload[i] ^ key[i & 3]);
            }
        }

        try
        {
            lock (_sending)
            {
                _socket.Send(frames);
            }

            return true;
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            Failure ??= "burst send: " + error.Message;
            return false;
        }
    }

    /// <summary>Broadcasts this websocket received.</summary>
    public int Received => Volatile.Read(ref _expected);

    /// <summary>The read loop; completes when the connection ends.</summary>
    public Task Reading { get; private set; } = Task.CompletedTask;

    /// <summary>Why the read loop ended early, if it did.</summary>
    public string? Failure { get; private set; }

    public static async Task<ReceivingWebSocket> ConnectAsync(
        IPEndPoint server, Deliveries deliveries, CancellationToken cancellationToken, BurstTally? burst = null, int index = 0)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(server, cancellationToken);
            await socket.SendAsync(Request, SocketFlags.None, cancellationToken);
            var webSocket = new ReceivingWebSocket(socket, deliveries, burst, index);
            await webSocket.ReadHeadAsync(cancellationToken);
            webSocket.Reading = webSocket.ReadAsync();
            return webSocket;
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    /// <summary>Closes the connection (FIN: everything sent to it was read).</summary>
    public void Close()
    {
        _closing = true;
        try
        {
            _socket.Shutdown(SocketShutdown.Both);
        }
        catch (SocketException)
        {
            // Already gone.
        }

        _socket.Dispose();
    }

    private async Task ReadHeadAsync(CancellationToken cancellationToken)
    {
        while (true)
        {
            int read = await _socket.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None, cancellationToken);
            if (read == 0)
            {
                throw new IOException("The server closed the connection during the handshake.");
            }

            _end += read;
            int head = _buffer.AsSpan(0, _end).IndexOf("\r\n\r\n"u8);
            if (head >= 0)
            {
                if (!_buffer.AsSpan(0, head).StartsWith("HTTP/1.1 101"u8))
                {
                    throw new IOException("The server refused the upgrade: " + Encoding.ASCII.GetString(_buffer, 0, Math.Min(head, 64)));
                }

                _start = head + 4;
                return;
            }

            if (_end == _buffer.Length)
            {
                throw new IOException("The upgrade response is too long.");
            }
        }
    }

    private async Task ReadAsync()
    {
        await Task.Yield();
        try
        {
            long receivedAt = Stopwatch.GetTimestamp();
            while (true)
            {
                if (!ParseFrames(receivedAt))
                {
                    return;
                }

                int read = await _socket.ReceiveAsync(_buffer.AsMemory(_end), SocketFlags.None);
                receivedAt = Stopwatch.GetTimestamp();
                if (read == 0)
                {
                    Failure ??= _closing ? null : "the server closed the connection";
                    return;
                }

                _end += read;
            }
        }
        catch (Exception error) when (error is SocketException or ObjectDisposedException)
        {
            Failure ??= _closing ? null : error.GetType().Name + ": " + error.Message;
        }
    }

    /// <summary>Hands over every whole frame buffered and moves a partial one to the front.</summary>
    /// <returns>False when the websocket ended (a Close, or a frame this client does not take).</returns>
    private bool ParseFrames(long receivedAt)
    {
        while (_end - _start >= 2)
        {
            byte first = _buffer[_start], second = _buffer[_start + 1];
            int header = 2;
            long length = second & 0x7F;
            if ((second & 0x80) != 0)
            {
                return Fail("a masked frame from the server");
            }

            if (length == 126)
            {
                if (_end - _start < 4)
                {
                    break;
                }

                length = BinaryPrimitives.ReadUInt16BigEndian(_buffer.AsSpan(_start + 2));
                header = 4;
            }
            else if (length == 127)
            {
                return Fail("a frame longer than this client takes");
            }

            if (header + length > _buffer.Length)
            {
                return Fail("a frame longer than this client takes");
            }

            if (_end - _start < header + length)
            {
                break;
            }

            if (!OnFrame(first, _buffer.AsSpan(_start + header, (int)length), receivedAt))
            {
                return false;
            }

            _start += header + (int)length;
        }

        if (_start == _end)
        {
            _start = _end = 0;
        }
        else if (_start > 0)
        {
            _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
            _end -= _start;
            _start = 0;
        }

        return true;
    }

    private bool OnFrame(byte first, ReadOnlySpan<byte> payload, long receivedAt)
    {
        var opcode = (WebSocketOpcode)(first & 0x0F);
        bool fin = (first & 0x80) != 0;
        switch (opcode)
        {
            case WebSocketOpcode.Binary when _burst is not null:
                Relayed(fin, payload, receivedAt);
                return true;
            case WebSocketOpcode.Binary when fin && payload.Length >= 12:
                long stamp = BinaryPrimitives.ReadInt64LittleEndian(payload);
                int sequence = BinaryPrimitives.ReadInt32LittleEndian(payload[8..]);
                if (sequence != _expected)
                {
                    _deliveries.OutOfOrderArrival();
                }

                Volatile.Write(ref _expected, sequence + 1);
                _deliveries.Arrived(sequence, stamp, receivedAt);
                return true;
            case WebSocketOpcode.Ping:
                SendControl(0x8A, payload); // FIN + Pong, the Ping's data
                return true;
            case WebSocketOpcode.Close:
                SendControl(0x88, payload.Length >= 2 ? payload[..2] : []);
                _burst?.Closed(payload.Length >= 2 ? BinaryPrimitives.ReadUInt16BigEndian(payload) : 1005);
                Failure ??= _closing ? null : "the server sent Close";
                return false;
            default:
                _deliveries.UnexpectedFrame();
                return true;
        }
    }

    /// <summary>Burst mode: one relayed message, checked against its sender's order and timed from its stamp.</summary>
    private void Relayed(bool fin, ReadOnlySpan<byte> payload, long receivedAt)
    {
        BurstTally burst = _burst!;
        if (!fin || payload.Length < 16)
        {
            burst.UnexpectedFrame();
            return;
        }

        long stamp = BinaryPrimitives.ReadInt64LittleEndian(payload);
        int sequence = BinaryPrimitives.ReadInt32LittleEndian(payload[8..]);
        int sender = BinaryPrimitives.ReadInt32LittleEndian(payload[12..]);
        if ((uint)sender >= (uint)_nextFrom.Length)
        {
            burst.UnexpectedFrame();
            return;
        }

        if (_nextFrom[sender] != sequence)
        {
            burst.OutOfOrderArrival();
        }

        _nextFrom[sender] = sequence + 1;
        burst.Arrived(stamp, receivedAt);
        Interlocked.Exchange(ref _lastReceipt, receivedAt);
        if (Interlocked.Increment(ref _burstReceived) == burst.Expected)
        {
            Interlocked.Exchange(ref _completeAt, receivedAt);
        }
    }

    private bool Fail(string reason)
    {
        _deliveries.UnexpectedFrame();
        Failure ??= reason;
        return false;
    }

    /// <summary>Sends a control frame, masked with the zero key (legal, and the bytes stay as they are).</summary>
    private void SendControl(byte first, ReadOnlySpan<byte> payload)
    {
        Span<byte> frame = stackalloc byte[6 + 125];
        frame[0] = first;
        frame[1] = (byte)(0x80 | payload.Length);
        frame.Slice(2, 4).Clear();
        payload.CopyTo(frame[6..]);
        try
        {
            lock (_sending)
            {
                _socket.Send(frame[..(6 + payload.Length)]);
            }
        }
        catch (SocketException)
        {
            // The connection is ending.
        }
    }
}
