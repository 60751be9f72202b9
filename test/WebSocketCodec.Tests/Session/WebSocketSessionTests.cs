using System.Buffers;
using Microsoft.Extensions.Time.Testing;

using static WebSocketCodec.Tests.Infrastructure.SessionWire;

namespace WebSocketCodec.Tests.Session;

public class WebSocketSessionTests
{
    private static byte[] Close(ushort status, string reason = "") =>
        WireFrames.Client(WebSocketOpcode.Close, [(byte)(status >> 8), (byte)status, .. System.Text.Encoding.UTF8.GetBytes(reason)]);

    private struct Recorder(List<(WebSocketOpcode, bool, byte[])> frames) : IFrameHandler
    {
        public readonly bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            frames.Add((opcode, fin, payload.ToArray()));
            return true;
        }
    }

    private static (OperationStatus Status, int Consumed) Feed(WebSocketSession session, byte[] input, List<(WebSocketOpcode, bool, byte[])> frames)
    {
        var recorder = new Recorder(frames);
        OperationStatus status = session.Receive(input, ref recorder, out int consumed);
        return (status, consumed);
    }

    [Fact]
    public void DataIsDeliveredPingsArePongedAndTheCloseIsEchoed()
    {
        using var session = new WebSocketSession(WebSocketRole.Server);
        var frames = new List<(WebSocketOpcode, bool, byte[])>();
        byte[] input = [.. WireFrames.Client(WebSocketOpcode.Text, "hi"u8), .. WireFrames.Client(WebSocketOpcode.Ping, "p1"u8), .. Close(1000, "bye"), .. WireFrames.Client(WebSocketOpcode.Text, "late"u8)];

        var (status, consumed) = Feed(session, input, frames);

        Assert.Equal(OperationStatus.Done, status);
        Assert.Equal(input.Length - WireFrames.Client(WebSocketOpcode.Text, "late"u8).Length, consumed); // nothing after the Close
        Assert.Equal([WebSocketOpcode.Text, WebSocketOpcode.Ping, WebSocketOpcode.Close], frames.Select(f => f.Item1));
        Assert.Equal([(WebSocketOpcode.Pong, "7031"), (WebSocketOpcode.Close, "03E8")], Written(session).Select(f => (f.Opcode, Convert.ToHexString(f.Payload))));
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal((CloseStatus)1000, session.ReceivedCloseStatus);
        Assert.Equal("bye", session.ReceivedCloseReason);
        Assert.Equal((CloseStatus)1000, session.SentCloseStatus);
        Assert.Equal(OperationStatus.Done, Feed(session, WireFrames.Client(WebSocketOpcode.Text, "x"u8), frames).Status);
        Assert.Equal(3, frames.Count);
    }

    [Fact]
    public void AnEmptyCloseIsAnsweredWithAnEmptyClose()
    {
        using var session = new WebSocketSession(WebSocketRole.Server);
        Feed(session, WireFrames.Client(WebSocketOpcode.Close, []), []);
        Assert.Equal((CloseStatus)1005, session.ReceivedCloseStatus);
        Assert.Equal([(WebSocketOpcode.Close, "")], Written(session).Select(f => (f.Opcode, Convert.ToHexString(f.Payload))));
    }

    [Fact]
    public void OurCloseWaitsForThePeersWithoutASecondClose()
    {
        using var session = new WebSocketSession(WebSocketRole.Server);
        Assert.True(session.StartClose((CloseStatus)4000, "x"));
        Assert.False(session.StartClose((CloseStatus)4001));
        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        Assert.Equal([(WebSocketOpcode.Close, "0FA078")], Written(session).Select(f => (f.Opcode, Convert.ToHexString(f.Payload))));

        var frames = new List<(WebSocketOpcode, bool, byte[])>();
        Feed(session, [.. WireFrames.Client(WebSocketOpcode.Binary, [1]), .. WireFrames.Client(WebSocketOpcode.Ping, "p"u8), .. Close(4000)], frames);
        Assert.Equal(WebSocketOpcode.Binary, frames[0].Item1); // still delivered
        // The Ping is still answered (RFC 6455 §5.5.2), and there is no second Close.
        Assert.Equal([(WebSocketOpcode.Pong, "70")], Written(session).Select(f => (f.Opcode, Convert.ToHexString(f.Payload))));
        Assert.Equal(WebSocketSessionState.Closed, session.State);
    }

    [Theory]
    [InlineData(new byte[] { 0x82, 0x01, 0x00 }, 1002, ProtocolViolation.UnmaskedFrame)]
    [InlineData(new byte[] { 0xC2, 0x80, 0, 0, 0, 0 }, 1002, ProtocolViolation.ReservedBitsSet)]
    [InlineData(new byte[] { 0x81, 0x81, 0, 0, 0, 0, 0xFF }, 1007, ProtocolViolation.InvalidTextUtf8)]
    [InlineData(new byte[] { 0x82, 0xFE, 0x01, 0x00, 0, 0, 0, 0 }, 1009, ProtocolViolation.FrameTooBig)]
    public void AViolationQueuesOneCloseWithItsStatus(byte[] input, int status, ProtocolViolation violation)
    {
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { MaxFramePayloadLength = 200 });
        Assert.Equal(OperationStatus.InvalidData, Feed(session, input, []).Status);
        Assert.Equal(violation, session.Violation);
        var close = Assert.Single(Written(session));
        Assert.Equal(status, WireFrames.CloseStatusOf(close.Payload));
        Assert.Equal(WebSocketSessionState.CloseSent, session.State); // draining until the peer's Close
        Assert.True(session.IsDraining);
        Assert.Equal(OperationStatus.NeedMoreData, Feed(session, input, []).Status); // skipped, nothing more written
        Assert.Empty(Written(session));
    }

    [Fact]
    public void AViolationAfterOurCloseSendsNoSecondClose()
    {
        using var session = new WebSocketSession(WebSocketRole.Server);
        session.StartClose();
        Written(session);
        Assert.Equal(OperationStatus.InvalidData, Feed(session, [0x82, 0x01, 0x00], []).Status);
        Assert.Empty(Written(session));
        Assert.Equal((CloseStatus)1000, session.SentCloseStatus);
    }

    [Theory]
    [InlineData(200)]
    [InlineData(70_000)]
    [InlineData(3)]
    public void AFrameSplitAtAnyByteArrivesWholeAndReturnsItsBuffer(int length)
    {
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, payload);
        int step = length > 1000 ? 997 : 1;
        for (int cut = 0; cut <= frame.Length; cut += step)
        {
            var pool = new CountingPool();
            using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
            var frames = new List<(WebSocketOpcode, bool, byte[])>();
            var (status, consumed) = Feed(session, frame[..cut], frames);
            Assert.Equal(OperationStatus.NeedMoreData, cut == frame.Length ? OperationStatus.NeedMoreData : status);
            (status, int more) = Feed(session, frame[consumed..], frames); // unconsumed bytes are offered again
            Assert.Equal(OperationStatus.NeedMoreData, status);
            Assert.Equal(frame.Length - consumed, more);
            Assert.Equal(payload, Assert.Single(frames).Item3);
            Assert.Equal(0, pool.Outstanding);
        }
    }

    [Fact]
    public void DisposingMidFrameReturnsTheBuffer()
    {
        var pool = new CountingPool();
        var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[1000]);
        Feed(session, frame[..500], []);
        Assert.Equal(1, pool.Outstanding);
        session.Dispose();
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void KeepAlivePingsAndTimesOutWithoutAPong()
    {
        var time = new FakeTimeProvider();
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions
        {
            TimeProvider = time, KeepAliveInterval = TimeSpan.FromSeconds(10), KeepAliveTimeout = TimeSpan.FromSeconds(5),
        });
        Assert.Equal(TimeSpan.FromSeconds(10), session.NextTimerDue);
        time.Advance(TimeSpan.FromSeconds(9));
        Assert.Equal(SessionTimerResult.None, session.OnTimer());
        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(SessionTimerResult.PingQueued, session.OnTimer());
        var ping = Assert.Single(Written(session));
        Assert.Equal(WebSocketOpcode.Ping, ping.Opcode);
        Assert.Equal(TimeSpan.FromSeconds(5), session.NextTimerDue);

        // An unrelated Pong does not count; the right one does.
        Feed(session, WireFrames.Client(WebSocketOpcode.Pong, "other"u8), []);
        time.Advance(TimeSpan.FromSeconds(4));
        Assert.Equal(SessionTimerResult.None, session.OnTimer());
        Feed(session, WireFrames.Client(WebSocketOpcode.Pong, ping.Payload), []);
        time.Advance(TimeSpan.FromSeconds(2));
        Assert.Equal(SessionTimerResult.None, session.OnTimer());

        time.Advance(TimeSpan.FromSeconds(10));
        Assert.Equal(SessionTimerResult.PingQueued, session.OnTimer());
        Written(session);
        time.Advance(TimeSpan.FromSeconds(5));
        Assert.Equal(SessionTimerResult.KeepAliveTimeout, session.OnTimer());
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        var close = Assert.Single(Written(session));
        Assert.Equal(new byte[] { 0x03, 0xE9 }, close.Payload[..2]);
    }

    [Fact]
    public void IdleTimeoutClosesThenTheCloseTimeoutEnds()
    {
        var time = new FakeTimeProvider();
        using var session = new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions
        {
            TimeProvider = time, IdleTimeout = TimeSpan.FromSeconds(30), CloseTimeout = TimeSpan.FromSeconds(3),
        });
        time.Advance(TimeSpan.FromSeconds(20));
        Feed(session, WireFrames.Client(WebSocketOpcode.Binary, [1]), []); // activity restarts the idle clock
        Assert.Equal(TimeSpan.FromSeconds(30), session.NextTimerDue);
        time.Advance(TimeSpan.FromSeconds(29));
        Assert.Equal(SessionTimerResult.None, session.OnTimer());
        time.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal(SessionTimerResult.IdleTimeout, session.OnTimer());
        Assert.Equal(WebSocketSessionState.CloseSent, session.State);
        byte[] idleClose = Assert.Single(Written(session)).Payload;
        Assert.Equal(1001, WireFrames.CloseStatusOf(idleClose));
        Assert.Equal(TimeSpan.FromSeconds(3), session.NextTimerDue);
        time.Advance(TimeSpan.FromSeconds(3));
        Assert.Equal(SessionTimerResult.CloseTimeout, session.OnTimer());
        Assert.Equal(WebSocketSessionState.Closed, session.State);
        Assert.Equal(System.Threading.Timeout.InfiniteTimeSpan, session.NextTimerDue);
    }

    [Fact]
    public void ControlFramesCanGoStraightToTheDriversOutput()
    {
        var output = new ArrayBufferWriter<byte>();
        using var session = new WebSocketSession(WebSocketRole.Server) { Output = output };
        Feed(session, WireFrames.Client(WebSocketOpcode.Ping, "x"u8), []);
        Assert.False(session.HasPendingOutput);
        Assert.Equal(new byte[] { 0x8A, 0x01, (byte)'x' }, output.WrittenSpan.ToArray());
    }
}
