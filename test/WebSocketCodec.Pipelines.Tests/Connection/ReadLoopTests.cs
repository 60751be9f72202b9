using System.Text;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>The read loop: frames with the handshake's leftovers, frames split anywhere, large frames across reads,
/// control frames answered, the close handshake, and no pooled buffer kept.</summary>
public sealed class ReadLoopTests
{
    private static byte[] Stream(params byte[][] frames) => [.. frames.SelectMany(f => f)];

    [Fact]
    public async Task EveryFrameIsDeliveredWhenTheStreamArrivesOneByteAtATime()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());
        byte[] big = new byte[300];
        new Random(1).NextBytes(big);
        byte[] wire = Stream(
            WireFrames.Client(WebSocketOpcode.Text, "héllo"u8),
            WireFrames.Client(WebSocketOpcode.Binary, big),
            WireFrames.Client(WebSocketOpcode.Text, "κό"u8, fin: false),
            WireFrames.Client(WebSocketOpcode.Ping, "p"u8),
            WireFrames.Client(WebSocketOpcode.Continuation, "σμε"u8),
            WireFrames.Client(WebSocketOpcode.Binary, []),
            WireFrames.ClientClose(1000, "bye"));

        await loop.SendByteByByteAsync(wire);
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());

        Assert.Equal(
            ["héllo", Convert.ToHexString(big), "κό", "σμε", ""],
            listener.Frames.Select(f => f.Opcode == WebSocketOpcode.Binary ? Convert.ToHexString(f.Payload) : Encoding.UTF8.GetString(f.Payload)));
        Assert.Equal([true, true, false, true, true], listener.Frames.Select(f => f.Fin));
        Assert.True(info.IsClean);
        Assert.Equal((CloseStatus)1000, info.ReceivedStatus);
        Assert.Equal("bye", info.ReceivedReason);
        var answers = WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal([WebSocketOpcode.Pong, WebSocketOpcode.Close], answers.Select(f => f.Opcode));
        Assert.Equal("p"u8.ToArray(), answers[0].Payload);
        Assert.Equal(new byte[] { 0x03, 0xE8 }, answers[1].Payload); // the status echoed
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task PongsReachTheListenerInOrderWithTheDataFrames()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());
        byte[] wire = Stream(
            WireFrames.Client(WebSocketOpcode.Pong, "a"u8),
            WireFrames.Client(WebSocketOpcode.Text, "x"u8, fin: false),
            WireFrames.Client(WebSocketOpcode.Pong, []),
            WireFrames.Client(WebSocketOpcode.Ping, "p"u8),
            WireFrames.Client(WebSocketOpcode.Continuation, "y"u8),
            WireFrames.Client(WebSocketOpcode.Pong, "bc"u8),
            WireFrames.ClientClose(1000));

        await loop.SendByteByByteAsync(wire);
        Assert.True((await run.WaitAsync(Loopback.Timeout())).IsClean);

        Assert.Equal(
            ["Pong:a", "Text:x", "Pong:", "Continuation:y", "Pong:bc"],
            listener.FramesAndPongs.Select(f => $"{f.Opcode}:{Encoding.UTF8.GetString(f.Payload)}"));
    }

    [Theory]
    [InlineData(70_000, 1)]
    [InlineData(70_000, 4096)]
    [InlineData(1_000_000, 65536)]
    [InlineData(65_536, 7)]
    public async Task LargeFramesArriveWholeWhateverTheReadSizes(int length, int chunk)
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout(30));
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        byte[] wire = Stream(WireFrames.Client(WebSocketOpcode.Binary, payload), WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3]), WireFrames.ClientClose(1000));
        for (int offset = 0; offset < wire.Length; offset += chunk)
        {
            await loop.SendAsync(wire.AsSpan(offset, Math.Min(chunk, wire.Length - offset)).ToArray());
        }

        await run.WaitAsync(Loopback.Timeout(30));
        Assert.Equal(2, listener.Frames.Count);
        Assert.Equal(payload, listener.Frames[0].Payload);
        Assert.Equal([1, 2, 3], listener.Frames[1].Payload);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task ThePeersFinWithoutACloseEndsAbnormally()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "half"u8, fin: false));
        await loop.FinAsync();
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Null(info.ReceivedStatus);
        Assert.Equal((CloseStatus)1006, info.Status);
        Assert.False(info.IsClean);
    }

    [Fact]
    public async Task CloseFromTheServerWaitsForThePeersClose()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());
        Task<WebSocketCloseInfo> closing = channel.CloseAsync((CloseStatus)4000, "going");
        var sent = WireFrames.Read(await loop.ReadAsync(4), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(4000, WireFrames.CloseStatusOf(sent[0].Payload));
        Assert.Equal(WebSocketSessionState.CloseSent, channel.State);
        Assert.Throws<InvalidOperationException>(() => channel.Sender.SendAsync(WebSocketOpcode.Text, "late"u8.ToArray()).AsTask().GetAwaiter().GetResult());

        // Data the peer sent before seeing our Close is still delivered; then its Close completes the handshake.
        await loop.SendAsync([.. WireFrames.Client(WebSocketOpcode.Text, "in flight"u8), .. WireFrames.ClientClose(4000)]);
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Same(info, await closing); // the close completes with the handshake, not with our Close's flush
        Assert.True(info.IsClean);
        Assert.Equal("in flight", Encoding.UTF8.GetString(Assert.Single(listener.Frames).Payload));
        Assert.Empty(await loop.ReadToEndAsync()); // no second Close
    }

    [Fact]
    public async Task AbortEndsAtOnce()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        using var cancel = new CancellationTokenSource();
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), cancel.Token);
        await cancel.CancelAsync();
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.IsType<OperationCanceledException>(info.Error);
        Assert.Null(info.SentStatus);
    }
}
