using WebSocketCodec.Pipelines.Tests.Infrastructure;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>A listener that sends to another websocket (a relay, a chat written with per-websocket sends) while that
/// websocket's listener sends back: each read loop owns its own websocket's output while its listener runs, and a
/// send never waits for another loop's: while that one dispatches, a whole message waits in its queue.</summary>
public sealed class CrossSendTests
{
    private const int Writes = 200, FramesPerWrite = 1_000;

    private sealed class Pair
    {
        public Pair(Action<WebSocketFrameSender, byte[]> forward)
        {
            A = new WebSocketConnection(LoopA.Server, WebSocketRole.Server);
            B = new WebSocketConnection(LoopB.Server, WebSocketRole.Server);
            ListenerA = new RecordingListener { OnEach = (_, _, payload) => forward(B.Sender, payload) };
            ListenerB = new RecordingListener { OnEach = (_, _, payload) => forward(A.Sender, payload) };
            RunA = A.RunAsync(ListenerA, Loopback.Timeout(60));
            RunB = B.RunAsync(ListenerB, Loopback.Timeout(60));
        }

        public Loopback LoopA { get; } = new();

        public Loopback LoopB { get; } = new();

        public WebSocketConnection A { get; }

        public WebSocketConnection B { get; }

        public RecordingListener ListenerA { get; }

        public RecordingListener ListenerB { get; }

        public Task<WebSocketCloseInfo> RunA { get; }

        public Task<WebSocketCloseInfo> RunB { get; }

        /// <summary>Both peers send the same volume at once; once every frame was read and
        /// <paramref name="expected"/> (given the frames read) reached the peers, both close.</summary>
        /// <returns>The bytes each peer received, Close included.</returns>
        public async Task<(long ToA, long ToB)> ExchangeAsync(Func<long> expected)
        {
            byte[] batch = [.. Enumerable.Range(0, FramesPerWrite).SelectMany(_ => WireFrames.Client(WebSocketOpcode.Binary, new byte[8]))];
            await Task.WhenAll(
                Task.Run(async () => { for (int i = 0; i < Writes; i++) await LoopA.SendAsync(batch, Loopback.Timeout(60)); }),
                Task.Run(async () => { for (int i = 0; i < Writes; i++) await LoopB.SendAsync(batch, Loopback.Timeout(60)); }));
            long toA = 0, toB = 0;
            await Eventually.True(() => ListenerA.Frames.Count == Writes * FramesPerWrite && ListenerB.Frames.Count == Writes * FramesPerWrite, TimeSpan.FromSeconds(60));
            // Forwarded frames may still be on their way through the thread pool: a Close now would drop them.
            await Eventually.True(() => (toA += LoopA.DiscardPending()) + (toB += LoopB.DiscardPending()) >= expected(), TimeSpan.FromSeconds(60));
            await LoopA.SendAsync(WireFrames.ClientClose(1000));
            await LoopB.SendAsync(WireFrames.ClientClose(1000));
            await Task.WhenAll(RunA, RunB).WaitAsync(TimeSpan.FromSeconds(60));
            return (toA + LoopA.DiscardPending(), toB + LoopB.DiscardPending());
        }
    }

    [Fact]
    public async Task ListenersSendAsyncToEachOtherWithoutDeadlockAndNothingIsLost()
    {
        var pair = new Pair((other, payload) => _ = other.SendAsync(WebSocketOpcode.Binary, payload).AsTask());

        (long toA, long toB) = await pair.ExchangeAsync(() => 2L * Writes * FramesPerWrite * 10);

        // Every frame each listener read reached the other peer (10 bytes each), and the server's Close (4 bytes).
        Assert.Equal(Writes * FramesPerWrite * 10L + 4, toA);
        Assert.Equal(Writes * FramesPerWrite * 10L + 4, toB);
    }

    [Fact]
    public async Task ListenersTrySendToEachOtherWithoutDeadlockAndWhatIsTakenArrives()
    {
        long taken = 0;
        var pair = new Pair((other, payload) =>
        {
            if (other.TrySend(WebSocketOpcode.Binary, payload))
            {
                Interlocked.Increment(ref taken);
            }
        });

        (long toA, long toB) = await pair.ExchangeAsync(() => Interlocked.Read(ref taken) * 10);

        Assert.Equal(Interlocked.Read(ref taken) * 10 + 8, toA + toB);
        Assert.True(taken > 0);
    }

    [Fact]
    public async Task AListenerSendsAFragmentedMessageToAnotherWebSocketWithoutWaitingForItsLoop()
    {
        var sends = new List<Task>();
        var pair = new Pair((other, payload) =>
        {
            // From A's read loop to B: B's loop is idle, so the fragments are appended at once, in order.
            sends.Add(other.SendAsync(WebSocketOpcode.Binary, new byte[] { 1 }, fin: false).AsTask());
            sends.Add(other.SendAsync(WebSocketOpcode.Continuation, new byte[] { 2 }, fin: true).AsTask());
        });

        await pair.LoopA.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, [9]));
        byte[] got = await pair.LoopB.ReadAsync(6);
        Assert.Equal(new byte[] { 0x02, 1, 1, 0x80, 1, 2 }, got); // Binary without FIN, then the final Continuation
        await Task.WhenAll(sends).WaitAsync(TimeSpan.FromSeconds(10));
        pair.A.Abort();
        pair.B.Abort();
    }
}
