using System.Buffers;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>
/// One echo connection over a plain <see cref="NetworkStream"/>: the handshake, then every whole frame in the buffer
/// decoded (unmasked in place), echoed into one output buffer, written once per read. Protocol violations get a Close
/// with their status; the peer's Close is answered with its status code.
/// </summary>
internal sealed class EchoConnection(Socket socket, string path)
{
    private const int MaxHeadLength = 8192;
    private static readonly TimeSpan HandshakeTimeout = TimeSpan.FromSeconds(10);
    private static readonly FrameDecoderOptions Limits = new() { MaxFramePayloadLength = 1 << 20, MaxMessagePayloadLength = 16 << 20 };

    private readonly FrameDecoder _decoder = new(WebSocketRole.Server, Limits);
    private readonly FrameEncoder _encoder = new(WebSocketRole.Server);
    private readonly ArrayBufferWriter<byte> _output = new(64 * 1024);
    private byte[] _buffer = new byte[64 * 1024];
    private int _start;
    private int _end;

    public async Task RunAsync(CancellationToken cancellation)
    {
        using var owner = socket;
        await using var stream = new NetworkStream(socket, ownsSocket: false);
        if (!await HandshakeAsync(stream, cancellation))
        {
            await DrainAsync(stream); // so the refusal is not erased by a reset over unread input
            return;
        }

        bool open = true;
        while (open)
        {
            open = EchoBufferedFrames(out bool needMore);
            if (_output.WrittenCount > 0)
            {
                await stream.WriteAsync(_output.WrittenMemory, cancellation);
                _output.ResetWrittenCount();
            }

            if (!open)
            {
                break;
            }

            if (needMore && !await FillAsync(stream, cancellation))
            {
                return; // the peer went away without a Close
            }
        }

        await DrainAsync(stream);
    }

    private async Task<bool> HandshakeAsync(NetworkStream stream, CancellationToken cancellation)
    {
        // A bounded head, read within a bounded time: a client that never finishes its request is dropped.
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(cancellation);
        deadline.CancelAfter(HandshakeTimeout);
        int headEnd;
        while ((headEnd = _buffer.AsSpan(0, Math.Min(_end, MaxHeadLength)).IndexOf("\r\n\r\n"u8)) < 0)
        {
            if (_end >= MaxHeadLength)
            {
                await stream.WriteAsync("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"u8.ToArray(), cancellation);
                return false;
            }

            if (!await FillAsync(stream, deadline.Token))
            {
                return false;
            }
        }

        string head = Encoding.ASCII.GetString(_buffer, 0, headEnd);
        var (accepted, response) = UpgradeRequest.Answer(head, path);
        await stream.WriteAsync(Encoding.ASCII.GetBytes(response), cancellation);
        _start = headEnd + 4; // frames sent right behind the request stay in the buffer
        return accepted;
    }

    /// <summary>Echoes every whole frame buffered; returns false once the connection should close.</summary>
    private bool EchoBufferedFrames(out bool needMore)
    {
        needMore = true;
        while (_start < _end)
        {
            var status = _decoder.ReadFrame(_buffer.AsSpan(_start, _end - _start), out var header, out var payload, out long missing);
            if (status == OperationStatus.NeedMoreData)
            {
                EnsureRoom(missing);
                return true;
            }

            if (status == OperationStatus.InvalidData)
            {
                WriteClose((ushort)_decoder.Violation.ToCloseStatus(), _decoder.Violation.Describe());
                return false;
            }

            _start += (int)header.FrameLength;
            switch (header.Opcode)
            {
                case WebSocketOpcode.Ping:
                    _encoder.Write(_output, WebSocketOpcode.Pong, payload);
                    break;
                case WebSocketOpcode.Pong:
                    break;
                case WebSocketOpcode.Close:
                    if (payload.IsEmpty)
                    {
                        _encoder.Write(_output, WebSocketOpcode.Close, []);
                    }
                    else
                    {
                        _encoder.Write(_output, WebSocketOpcode.Close, payload[..2]);
                    }

                    return false;
                default:
                    _encoder.Write(_output, header.Opcode, payload, header.Fin);
                    break;
            }
        }

        _start = _end = 0;
        return true;
    }

    private void WriteClose(ushort status, string reason)
    {
        Span<byte> payload = stackalloc byte[125];
        int length = ClosePayload.Write(payload, status, reason);
        _encoder.Write(_output, WebSocketOpcode.Close, payload[..length]);
    }

    /// <summary>Makes room for <paramref name="missing"/> more bytes after the buffered ones.</summary>
    private void EnsureRoom(long missing)
    {
        int buffered = _end - _start;
        long needed = buffered + Math.Max(missing, 1);
        if (_start > 0)
        {
            _buffer.AsSpan(_start, buffered).CopyTo(_buffer);
            _start = 0;
            _end = buffered;
        }

        if (needed > _buffer.Length)
        {
            Array.Resize(ref _buffer, (int)Math.Min(Math.Max(needed, _buffer.Length * 2L), Array.MaxLength));
        }
    }

    private async Task<bool> FillAsync(NetworkStream stream, CancellationToken cancellation)
    {
        if (_end == _buffer.Length)
        {
            EnsureRoom(1);
        }

        int read = await stream.ReadAsync(_buffer.AsMemory(_end), cancellation);
        _end += read;
        return read > 0;
    }

    /// <summary>After our Close (or a refused handshake), read and discard (bounded in bytes and time) until the peer closes, so closing the
    /// socket does not send RST over unread input and erase our Close on the peer's side.</summary>
    private async Task DrainAsync(NetworkStream stream)
    {
        socket.Shutdown(SocketShutdown.Send);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(2));
        byte[] sink = new byte[4096];
        long budget = 1 << 20;
        try
        {
            int read;
            while (budget > 0 && (read = await stream.ReadAsync(sink, timeout.Token)) > 0)
            {
                budget -= read;
            }
        }
        catch (OperationCanceledException)
        {
        }
        catch (IOException)
        {
        }
    }
}
