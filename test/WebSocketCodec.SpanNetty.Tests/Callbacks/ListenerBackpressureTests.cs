using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Callbacks;

/// <summary>The core listener's <see cref="IWebSocketFrameListener.OnReadCompleteAsync"/> on SpanNetty: a pending task
/// pauses reading until it completes; a failed one ends the websocket with 1011.</summary>
public sealed class ListenerBackpressureTests : LeakCheckedTests
{
    [Fact]
    public void APendingReadCompletePausesReadingUntilItCompletes()
    {
        var listener = new PendingListener();
        var channel = new EmbeddedChannel(new WebSocketChannelHandler(WebSocketRole.Server, _ => listener));
        channel.WriteInbound(Wire.Buffer(WireFrames.Client(WebSocketOpcode.Text, "queued elsewhere"u8)));

        Assert.Equal(1, listener.Frames);
        Assert.False(channel.Configuration.IsAutoRead);

        listener.Work.SetResult();
        Assert.True(Completed.Until(channel, () => channel.Configuration.IsAutoRead));
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AFailedReadCompleteClosesWith1011()
    {
        var listener = new PendingListener();
        var channel = new EmbeddedChannel(new WebSocketChannelHandler(WebSocketRole.Server, _ => listener));
        channel.WriteInbound(Wire.Buffer(WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3])));

        listener.Work.SetException(new InvalidOperationException("application bug"));
        var output = new List<byte>();
        Assert.True(Completed.Until(channel, () =>
        {
            output.AddRange(Wire.Outbound(channel));
            return output.Count > 0;
        }));

        var frames = WireFrames.Read(output.ToArray(), WebSocketRole.Client);
        var close = Assert.Single(frames);
        Assert.Equal(WebSocketOpcode.Close, close.Opcode);
        Assert.Equal(1011, WireFrames.CloseStatusOf(close.Payload));
        Assert.True(channel.Configuration.IsAutoRead); // the peer's answer must be read
        channel.FinishAndReleaseAll();
    }

    private sealed class PendingListener : IWebSocketFrameListener
    {
        public int Frames { get; private set; }

        public TaskCompletionSource Work { get; } = new(); // the handler's continuation runs inside SetResult: no race with RunPendingTasks

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => Frames++;

        public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken) => new(Work.Task);
    }
}
