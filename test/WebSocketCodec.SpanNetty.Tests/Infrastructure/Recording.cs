using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>Callbacks that keep what they were given (payloads copied) and, optionally, echo each frame.</summary>
internal sealed class Recording(ChannelFrameSender sender, bool echo = true) : IWebSocketFrameListener
{
    public List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Frames { get; } = [];

    public WebSocketCloseInfo? Closed { get; private set; }

    public int ReadCompletes { get; private set; }

    public ChannelFrameSender Sender => sender;

    /// <summary>Runs on every frame after it is recorded (to test what callbacks may do).</summary>
    public Action<ChannelFrameSender, WebSocketOpcode, byte[]>? OnEach { get; set; }

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

    public void OnClose(WebSocketCloseInfo info) => Closed = info;
}
