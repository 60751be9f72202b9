namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>Every violation ends in exactly one Close with its status, flushed before the transport closes, and the
/// transport stays open until the peer answers (no reset over an unread Close).</summary>
public sealed class ChannelViolationTests
{
    public static TheoryData<byte[], ushort> Violations() => new()
    {
        { [0x82, 0x02, 0x01, 0x02], 1002 }, // unmasked client frame
        { [0x83, 0x80, 1, 2, 3, 4], 1002 }, // reserved opcode 3
        { [0x8B, 0x80, 1, 2, 3, 4], 1002 }, // reserved control opcode 0xB
        { [0xC2, 0x80, 1, 2, 3, 4], 1002 }, // RSV1
        { [0xA2, 0x80, 1, 2, 3, 4], 1002 }, // RSV2
        { [0x92, 0x80, 1, 2, 3, 4], 1002 }, // RSV3
        { [0x80, 0x80, 1, 2, 3, 4], 1002 }, // continuation without a message
        { [0x09, 0x80, 1, 2, 3, 4], 1002 }, // fragmented ping
        { [0x89, 0xFE, 0x00, 0x7E, 1, 2, 3, 4], 1002 }, // ping over 125 bytes
        { [0x88, 0x81, 0, 0, 0, 0, 0x03], 1002 }, // close with one byte
        { [0x88, 0x82, 0, 0, 0, 0, 0x03, 0xED], 1002 }, // close 1005 on the wire
        { [0x88, 0x82, 0, 0, 0, 0, 0x03, 0xE7], 1002 }, // close 999
        { [0x88, 0x82, 0, 0, 0, 0, 0x13, 0x88], 1002 }, // close 5000
        { [0x88, 0x84, 0, 0, 0, 0, 0x03, 0xE8, 0xC0, 0x80], 1007 }, // close reason not UTF-8
        { [0x81, 0x82, 0, 0, 0, 0, 0xC0, 0x80], 1007 }, // overlong UTF-8 in text
        { [0x82, 0xFE, 0x00, 0x05, 0, 0, 0, 0, 1, 2, 3, 4, 5], 1002 }, // non-minimal 16-bit length
        { [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], 1002 }, // 64-bit length with the top bit
        { [0x82, 0xFF, 0, 0, 0, 0x01, 0, 0, 0, 0, 1, 2, 3, 4], 1009 }, // 4 GiB frame over the limit
    };

    [Theory]
    [MemberData(nameof(Violations))]
    public async Task ViolationWritesOneCloseWithItsStatusEndsTheOutputThenWaitsForThePeersEnd(byte[] frame, ushort status)
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());

        // A good frame first, in the same read as the bad one: it is delivered, then the Close is written.
        await loop.SendAsync([.. WireFrames.Client(WebSocketOpcode.Binary, [7, 7]), .. frame]);
        byte[] wire = await loop.ReadAsync(4);
        var frames = WireFrames.Read(wire, WebSocketRole.Client, validateUtf8: false);
        Assert.Single(frames);
        Assert.Equal(WebSocketOpcode.Close, frames[0].Opcode);
        Assert.Equal(status, WireFrames.CloseStatusOf(frames[0].Payload));
        Assert.Equal([7, 7], Assert.Single(listener.Frames).Payload);

        // The connection is failed: our output ends right after the Close (an in-memory pipe's writer completed), whether
        // the bad frame was the peer's Close (the exchange is complete) or not.
        Assert.Empty(await loop.ReadToEndAsync()); // exactly one Close: nothing after it
        bool badClose = (frame[0] & 0x0F) == (int)WebSocketOpcode.Close;
        if (!badClose)
        {
            // Ended at once, not by the close timeout: the websocket still waits for the peer's end.
            Assert.False(run.IsCompleted, "the output ended only with the websocket");

            // The transport is not closed under the peer's feet: its side is read (and discarded, its Close included)
            // until it ends.
            await loop.SendAsync(WireFrames.ClientClose(status));
            await loop.FinAsync();
        }

        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.False(info.EndReason is WebSocketEndReason.KeepAliveTimeout or WebSocketEndReason.IdleTimeout or WebSocketEndReason.CloseTimeout);
        Assert.Null(info.ReceivedStatus); // RFC 6455 §7.1.7: the peer's Close after the violation is not processed
        Assert.NotEqual(ProtocolViolation.None, info.Violation);
        Assert.Equal((CloseStatus)status, info.SentStatus);
        Assert.Equal(info, await listener.Closed);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public async Task ViolationSplitByteByByteGivesTheSameClose()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        byte[] text = WireFrames.Client(WebSocketOpcode.Text, "abc\xFF"u8.ToArray());
        byte[] bad = WireFrames.Client(WebSocketOpcode.Text, [.. "κόσμε"u8, 0xED, 0xA0, 0x80]); // a surrogate
        await loop.SendByteByByteAsync(bad);
        var frames = WireFrames.Read(await loop.ReadAsync(4), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(1007, WireFrames.CloseStatusOf(frames[0].Payload));
        await loop.FinAsync();
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(ProtocolViolation.InvalidTextUtf8, info.Violation);
        Assert.NotEmpty(text);
    }

    [Fact]
    public async Task APeerThatNeverAnswersIsDroppedAfterTheCloseTimeout()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { CloseTimeout = TimeSpan.FromMilliseconds(200) });
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await loop.SendAsync(0x82, 0x02, 0x01, 0x02); // unmasked
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(ProtocolViolation.UnmaskedFrame, info.Violation);
        var frames = WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(1002, WireFrames.CloseStatusOf(Assert.Single(frames).Payload));
    }

    [Fact]
    public async Task AListenerExceptionClosesWith1011AndIsReported()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        var listener = new RecordingListener { OnEach = (_, _, _) => throw new InvalidOperationException("app bug") };
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "x"u8));
        var frames = WireFrames.Read(await loop.ReadAsync(4), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal(1011, WireFrames.CloseStatusOf(frames[0].Payload));
        Assert.Empty(await loop.ReadToEndAsync()); // a failed listener fails the connection: the output ends at once
        await loop.SendAsync(WireFrames.ClientClose(1011));
        await loop.FinAsync();
        WebSocketCloseInfo info = await run.WaitAsync(Loopback.Timeout());
        Assert.Null(info.ReceivedStatus);
        Assert.Equal("app bug", info.Error?.Message);
        Assert.False(info.IsClean);
    }
}
