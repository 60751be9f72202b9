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
/// them in order. Answers a Ping with a Pong and a Close with a Close.
/// </summary>
internal sealed class ReceivingWebSocket
{
    private static readonly byte[] Request = Encoding.ASCII.GetBytes(
        "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");

    private readonly Socket _socket;
    private readonly Deliveries _deliveries;
    private readonly byte[] _buffer = new byte[4096];
    private int _start;
    private int _end;
    private int _expected;
    private volatile bool _closing;

    private ReceivingWebSocket(Socket socket, Deliveries deliveries)
    {
        _socket = socket;
        _deliveries = deliveries;
    }

    /// <summary>Broadcasts this websocket received.</summary>
    public int Received => Volatile.Read(ref _expected);

    /// <summary>The read loop; completes when the connection ends.</summary>
    public Task Reading { get; private set; } = Task.CompletedTask;

    /// <summary>Why the read loop ended early, if it did.</summary>
    public string? Failure { get; private set; }

    public static async Task<ReceivingWebSocket> ConnectAsync(IPEndPoint server, Deliveries deliveries, CancellationToken cancellationToken)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        try
        {
            await socket.ConnectAsync(server, cancellationToken);
            await socket.SendAsync(Request, SocketFlags.None, cancellationToken);
            var webSocket = new ReceivingWebSocket(socket, deliveries);
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
                Failure ??= _closing ? null : "the server sent Close";
                return false;
            default:
                _deliveries.UnexpectedFrame();
                return true;
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
            _socket.Send(frame[..(6 + payload.Length)]);
        }
        catch (SocketException)
        {
            // The connection is ending.
        }
    }
}
