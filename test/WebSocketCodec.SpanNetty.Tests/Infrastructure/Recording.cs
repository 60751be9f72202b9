using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Callbacks that keep what they were given (payloads copied) and, optionally, echo each frame.</summary>
internal sealed class Recording(WebSocketFrameSender sender, bool echo = true) : IWebSocketFrameListener
{
    public List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Frames { get; } = [];

    public WebSocketCloseInfo? Closed { get; private set; }

    public int ReadCompletes { get; private set; }

    public WebSocketFrameSender Sender => sender;

    /// <summary>Runs on every frame after it is recorded (to test what callbacks may do).</summary>
    public Action<WebSocketFrameSender, WebSocketOpcode, byte[]>? OnEach { get; set; }

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        byte[] copy = payload.ToArray();
        Frames.Add((opcode, fin, copy));
        if (echo && sender.CanSend)
        {
            sender.Send(opcode, payload, fin);
        }

        OnEach?.Invoke(sender, opcode, copy);
    }

    public void OnReadComplete() => ReadCompletes++;

    /// <summary>Runs <paramref name="action"/> on the websocket's read loop, where the synchronous sends belong: an
    /// unsolicited Pong from the peer (which asks no answer) is read, and the action runs in its callback; what it sent
    /// is flushed at the end of that read.</summary>
    public void OnLoop(EmbeddedChannel channel, WebSocketRole role, Action<WebSocketFrameSender> action)
    {
        _onPong = action;
        byte[] pong = role == WebSocketRole.Server ? WireFrames.Client(WebSocketOpcode.Pong, []) : WireFrames.Server(WebSocketOpcode.Pong, []);
        channel.WriteInbound(Wire.Buffer(pong));
        channel.RunPendingTasks();
        Exception? failure = _failure;
        _failure = null;
        if (failure is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(failure);
        }
    }

    private Action<WebSocketFrameSender>? _onPong;
    private Exception? _failure;

    public void OnPong(ReadOnlySpan<byte> payload)
    {
        Action<WebSocketFrameSender>? action = _onPong;
        _onPong = null;
        try
        {
            action?.Invoke(sender);
        }
        catch (Exception error)
        {
            _failure = error; // the test sees it (a listener's exception would fail the websocket)
        }
    }

    public void OnClose(WebSocketCloseInfo info) => Closed = info;
}
