namespace WebSocketCodec.Pipelines.Tests.Infrastructure;

/// <summary>Records every frame and the close.</summary>
public sealed class RecordingListener : IWebSocketFrameListener
{
    private readonly TaskCompletionSource<WebSocketCloseInfo> _closed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> Frames { get; } = [];

    public Action<WebSocketOpcode, bool, byte[]>? OnEach { get; set; }

    /// <summary>Every frame and Pong in arrival order: a Pong as (Pong, true, payload).</summary>
    public List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)> FramesAndPongs { get; } = [];

    public Task<WebSocketCloseInfo> Closed => _closed.Task;

    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        byte[] copy = payload.ToArray();
        Frames.Add((opcode, fin, copy));
        FramesAndPongs.Add((opcode, fin, copy));
        OnEach?.Invoke(opcode, fin, copy);
    }

    public void OnPong(ReadOnlySpan<byte> payload) => FramesAndPongs.Add((WebSocketOpcode.Pong, true, payload.ToArray()));

    public void OnClose(WebSocketCloseInfo info) => _closed.TrySetResult(info);
}
