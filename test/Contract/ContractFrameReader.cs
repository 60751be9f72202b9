using System.Buffers;
using System.Text;

namespace WebSocketCodec.Testing.Contract;

/// <summary>Reads the frames a websocket under test sends, from the raw stream of its peer in the contract suites
/// (the peer's role decides the rules: a server's frames must not be masked, a client's must be), every rule checked,
/// and the end of its direction (a FIN, END_STREAM) seen as the end.</summary>
public sealed class ContractFrameReader(Stream stream, WebSocketRole reader, bool deflate)
{
    private readonly FrameDecoder _decoder = new(reader, new FrameDecoderOptions
    {
        ValidateUtf8 = false, AllowedRsv = deflate ? 4 : 0, PerMessageDeflate = deflate,
    });

    private readonly byte[] _buffer = new byte[1 << 20];
    private int _start;
    private int _end;

    /// <summary>A frame read (asserted present) as its opcode and its payload's text.</summary>
    public static (WebSocketOpcode, string) Text((WebSocketOpcode Opcode, byte[] Payload)? frame)
    {
        Assert.NotNull(frame);
        return (frame.Value.Opcode, Encoding.UTF8.GetString(frame.Value.Payload));
    }

    /// <summary>Whether the last message <see cref="ReadMessageAsync"/> returned came compressed (RSV1).</summary>
    public bool LastMessageCompressed { get; private set; }

    /// <summary>The next frame, or null when the websocket under test ended its direction.</summary>
    public async Task<(WebSocketOpcode Opcode, byte[] Payload)?> ReadFrameAsync() =>
        await ReadFinFrameAsync() is { } frame ? (frame.Opcode, frame.Payload) : null;

    /// <summary>The next frame with its FIN and RSV bits, or null when the websocket under test ended its direction.</summary>
    public async Task<(WebSocketOpcode Opcode, byte[] Payload, bool Fin, int Rsv)?> ReadFinFrameAsync()
    {
        while (true)
        {
            OperationStatus status = _decoder.ReadFrame(_buffer.AsSpan(_start, _end - _start), out FrameHeader header, out Span<byte> payload, out _);
            if (status == OperationStatus.Done)
            {
                _start += (int)header.FrameLength;
                return (header.Opcode, payload.ToArray(), header.Fin, header.Rsv);
            }

            Assert.True(status == OperationStatus.NeedMoreData, $"the bytes of the websocket under test break a rule: {_decoder.Violation}");
            if (_start > 0)
            {
                _buffer.AsSpan(_start, _end - _start).CopyTo(_buffer);
                _end -= _start;
                _start = 0;
            }

            int read = await stream.ReadAsync(_buffer.AsMemory(_end), RawHttp.Timeout());
            if (read == 0)
            {
                Assert.True(_end == _start, "the websocket under test ended its direction inside a frame");
                return null;
            }

            _end += read;
        }
    }

    /// <summary>The next data message, its fragments joined (asserting the continuation rules) and inflated when it
    /// came compressed (<see cref="LastMessageCompressed"/>).</summary>
    public async Task<(WebSocketOpcode Opcode, string Text)> ReadMessageAsync()
    {
        var joined = new List<byte>();
        WebSocketOpcode? type = null;
        while (true)
        {
            (WebSocketOpcode Opcode, byte[] Payload, bool Fin, int Rsv)? frame = await ReadFinFrameAsync();
            Assert.NotNull(frame);
            if (type is null)
            {
                Assert.True(frame.Value.Opcode is WebSocketOpcode.Text or WebSocketOpcode.Binary, $"a message began with {frame.Value.Opcode}");
                type = frame.Value.Opcode;
                LastMessageCompressed = (frame.Value.Rsv & 4) != 0;
            }
            else
            {
                Assert.Equal(WebSocketOpcode.Continuation, frame.Value.Opcode);
            }

            joined.AddRange(frame.Value.Payload);
            if (frame.Value.Fin)
            {
                byte[] message = LastMessageCompressed ? ReferenceDeflate.Inflate([.. joined]) : [.. joined];
                return (type.Value, Encoding.UTF8.GetString(message));
            }
        }
    }

    /// <summary>Reads frames until a Close; returns its status and reason.</summary>
    public async Task<(int Status, string Reason)> ReadCloseAsync()
    {
        while (await ReadFrameAsync() is { } frame)
        {
            if (frame.Opcode == WebSocketOpcode.Close)
            {
                return (WireFrames.CloseStatusOf(frame.Payload), Encoding.UTF8.GetString(frame.Payload.AsSpan(2)));
            }
        }

        Assert.Fail("the websocket under test ended its direction without a Close");
        return default;
    }
}
