using System.Buffers;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Testing.Contract;

/// <summary>A raw HTTP/1.1 websocket client for the contract suite: masked frames of any kind out, the server's frames
/// in (every rule checked), and the server's FIN seen as the end.</summary>
public sealed class ContractClient : IDisposable
{
    private readonly Socket _socket;
    private readonly FrameDecoder _decoder = new(WebSocketRole.Client, new FrameDecoderOptions { ValidateUtf8 = false });
    private readonly byte[] _buffer = new byte[1 << 20];
    private int _start;
    private int _end;

    private ContractClient(Socket socket) => _socket = socket;

    /// <summary>Connects and completes the opening handshake at <c>/ws</c> (asserting 101).</summary>
    /// <param name="server">The server.</param>
    /// <param name="receiveBufferSize">The socket's receive buffer, when a test needs a peer that stops reading to
    /// hold back the server soon.</param>
    public static async Task<ContractClient> ConnectAsync(IContractServer server, int? receiveBufferSize = null)
    {
        Socket socket = await RawHttp.ConnectAsync(server.EndPoint);
        if (receiveBufferSize is { } size)
        {
            socket.ReceiveBufferSize = size;
        }

        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws")), RawHttp.Timeout());
        string head = await RawHttp.ReadHeadAsync(socket);
        Assert.StartsWith("HTTP/1.1 101 ", head);
        return new ContractClient(socket);
    }

    /// <summary>Sends bytes as they are.</summary>
    public async Task SendAsync(byte[] bytes) => await _socket.SendAsync(bytes, RawHttp.Timeout());

    /// <summary>Sends one masked frame.</summary>
    public Task SendAsync(WebSocketOpcode opcode, string payload) => SendAsync(WireFrames.Client(opcode, Encoding.UTF8.GetBytes(payload)));

    /// <summary>Ends our direction (a FIN).</summary>
    public void Fin() => _socket.Shutdown(SocketShutdown.Send);

    /// <summary>The server's next frame, or null when the server ended its direction.</summary>
    public async Task<(WebSocketOpcode Opcode, byte[] Payload)?> ReadFrameAsync() =>
        await ReadFinFrameAsync() is { } frame ? (frame.Opcode, frame.Payload) : null;

    /// <summary>The server's next data message, its fragments joined (asserting the continuation rules).</summary>
    public async Task<(WebSocketOpcode Opcode, string Text)> ReadMessageAsync()
    {
        var joined = new List<byte>();
        WebSocketOpcode? type = null;
        while (true)
        {
            (WebSocketOpcode Opcode, byte[] Payload, bool Fin)? frame = await ReadFinFrameAsync();
            Assert.NotNull(frame);
            if (type is null)
            {
                Assert.True(frame.Value.Opcode is WebSocketOpcode.Text or WebSocketOpcode.Binary, $"a message began with {frame.Value.Opcode}");
                type = frame.Value.Opcode;
            }
            else
            {
                Assert.Equal(WebSocketOpcode.Continuation, frame.Value.Opcode);
            }

            joined.AddRange(frame.Value.Payload);
            if (frame.Value.Fin)
            {
                return (type.Value, Encoding.UTF8.GetString([.. joined]));
            }
        }
    }

    /// <summary>The server's next frame with its FIN bit, or null when the server ended its direction.</summary>
    public async Task<(WebSocketOpcode Opcode, byte[] Payload, bool Fin)?> ReadFinFrameAsync()
    {
        while (true)
        {
            OperationStatus status = _decoder.ReadFrame(_buffer.AsSpan(_start, _end - _start), out FrameHeader header, out Span<byte> payload, out _);
            if (status == OperationStatus.Done)
            {
                _start += (int)header.FrameLength;
                return (header.Opcode, payload.ToArray(), header.Fin);
            }

            Assert.True(status == OperationStatus.NeedMoreData, $"the server's bytes break a rule: {_decoder.Violation}");
            if (_start > 0)
            {
                _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
                _end -= _start;
                _start = 0;
            }

            int read = await _socket.ReceiveAsync(_buffer.AsMemory(_end), RawHttp.Timeout());
            if (read == 0)
            {
                Assert.True(_end == _start, "the server ended its direction inside a frame");
                return null;
            }

            _end += read;
        }
    }

    /// <summary>Reads frames until the server's Close; returns its status and reason.</summary>
    public async Task<(int Status, string Reason)> ReadCloseAsync()
    {
        while (await ReadFrameAsync() is { } frame)
        {
            if (frame.Opcode == WebSocketOpcode.Close)
            {
                return (WireFrames.CloseStatusOf(frame.Payload), Encoding.UTF8.GetString(frame.Payload.AsSpan(2)));
            }
        }

        Assert.Fail("the server ended its direction without a Close");
        return default;
    }

    /// <summary>Asserts that the server's next event is the end of its direction (nothing after its Close).</summary>
    public async Task AssertEndAsync() => Assert.Null(await ReadFrameAsync());

    public void Dispose() => _socket.Dispose();
}
