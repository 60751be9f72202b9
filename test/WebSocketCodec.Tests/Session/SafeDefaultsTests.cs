using System.Buffers;
using Microsoft.Extensions.Time.Testing;

using static WebSocketCodec.Tests.Infrastructure.SessionWire;

namespace WebSocketCodec.Tests.Session;

/// <summary>Each limit of <see cref="WebSocketSessionOptions.Default"/> at work, with only the clock replaced: what a
/// peer gets when it crosses it (the README's limits table).</summary>
public class SafeDefaultsTests
{
    private struct Counter : IFrameHandler
    {
        public int Frames;
        public int FinalFrames;

        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Frames++;
            FinalFrames += fin ? 1 : 0;
            return true;
        }
    }

    private static (WebSocketSession Session, FakeTimeProvider Time) ServerWithDefaults()
    {
        var time = new FakeTimeProvider();
        return (new WebSocketSession(WebSocketRole.Server, WebSocketSessionOptions.Default with { TimeProvider = time }), time);
    }

    [Fact]
    public void AQuietPeerGetsAPingAfter30SecondsAndIsGivenUp15SecondsLaterWithoutAPong()
    {
        var (session, time) = ServerWithDefaults();
        using (session)
        {
            time.Advance(TimeSpan.FromSeconds(29.9));
            Assert.Equal(SessionTimerResult.None, session.OnTimer());
            Assert.Empty(Written(session));
            time.Advance(TimeSpan.FromSeconds(0.1));
            Assert.Equal(SessionTimerResult.PingQueued, session.OnTimer());
            Assert.Equal(WebSocketOpcode.Ping, Assert.Single(Written(session)).Opcode);

            time.Advance(TimeSpan.FromSeconds(14.9));
            Assert.Equal(SessionTimerResult.None, session.OnTimer());
            time.Advance(TimeSpan.FromSeconds(0.1));
            Assert.Equal(SessionTimerResult.KeepAliveTimeout, session.OnTimer());
            Assert.Equal(WebSocketSessionState.Closed, session.State);
            var close = Assert.Single(Written(session));
            Assert.Equal(WebSocketOpcode.Close, close.Opcode);
            Assert.Equal(1001, WireFrames.CloseStatusOf(close.Payload));
        }
    }

    [Fact]
    public void APeerThatAnswersEveryPingStaysOpenForAnHourWithoutSendingData()
    {
        var (session, time) = ServerWithDefaults();
        using (session)
        {
            int pings = 0;
            for (int second = 0; second < 3600; second++)
            {
                time.Advance(TimeSpan.FromSeconds(1));
                Assert.NotEqual(SessionTimerResult.KeepAliveTimeout, session.OnTimer());
                foreach (var (opcode, payload) in Written(session))
                {
                    Assert.Equal(WebSocketOpcode.Ping, opcode);
                    pings++;
                    var counter = new Counter();
                    session.Receive(WireFrames.Client(WebSocketOpcode.Pong, payload), ref counter, out _);
                }
            }

            Assert.Equal(WebSocketSessionState.Open, session.State); // no idle timeout by default
            Assert.Equal(120, pings); // one per 30 s of quiet
        }
    }

    [Fact]
    public void OurCloseIsGivenUpAfterFiveSecondsWithoutTheirs()
    {
        var (session, time) = ServerWithDefaults();
        using (session)
        {
            Assert.True(session.StartClose());
            Written(session);
            time.Advance(TimeSpan.FromSeconds(4.9));
            Assert.Equal(SessionTimerResult.None, session.OnTimer());
            time.Advance(TimeSpan.FromSeconds(0.1));
            Assert.Equal(SessionTimerResult.CloseTimeout, session.OnTimer());
            Assert.Equal(WebSocketSessionState.Closed, session.State);
        }
    }

    [Fact]
    public void A4096FragmentMessageIsDeliveredAndThe4097thFragmentGets1008()
    {
        var (session, _) = ServerWithDefaults();
        using (session)
        {
            var input = new List<byte>(WireFrames.Client(WebSocketOpcode.Binary, [1], fin: false));
            byte[] middle = WireFrames.Client(WebSocketOpcode.Continuation, [2], fin: false);
            for (int i = 2; i < 4096; i++)
            {
                input.AddRange(middle);
            }

            input.AddRange(WireFrames.Client(WebSocketOpcode.Continuation, [3], fin: true));
            var counter = new Counter();
            Assert.Equal(OperationStatus.NeedMoreData, session.Receive(input.ToArray(), ref counter, out _));
            Assert.Equal((4096, 1), (counter.Frames, counter.FinalFrames));

            // The next message in one more fragment than the limit: refused at the 4097th header, before its payload.
            input.Clear();
            input.AddRange(WireFrames.Client(WebSocketOpcode.Binary, [1], fin: false));
            for (int i = 1; i < 4096; i++)
            {
                input.AddRange(middle);
            }

            input.AddRange(WireFrames.Client(WebSocketOpcode.Continuation, [3], fin: true));
            counter = new Counter();
            session.Receive(input.ToArray(), ref counter, out _);
            Assert.Equal((4096, 0), (counter.Frames, counter.FinalFrames));
            Assert.Equal(ProtocolViolation.TooManyFragments, session.Violation);
            var close = Assert.Single(Written(session), f => f.Opcode == WebSocketOpcode.Close);
            Assert.Equal(1008, WireFrames.CloseStatusOf(close.Payload));
        }
    }

    [Fact]
    public void ControlFramesBetweenFragmentsDoNotCountAsFragments()
    {
        var (session, _) = ServerWithDefaults();
        using (session)
        {
            var input = new List<byte>(WireFrames.Client(WebSocketOpcode.Text, "a"u8, fin: false));
            for (int i = 1; i < 4096; i++)
            {
                input.AddRange(WireFrames.Client(WebSocketOpcode.Pong, []));
                input.AddRange(WireFrames.Client(WebSocketOpcode.Continuation, "b"u8, fin: i == 4095));
            }

            var counter = new Counter();
            session.Receive(input.ToArray(), ref counter, out _);
            Assert.Equal(ProtocolViolation.None, session.Violation);
            Assert.Equal(1 + (2 * 4095), counter.Frames);
        }
    }

    [Fact]
    public void AFrameAnnouncingOneByteOver16MiBGets1009FromItsHeaderAlone()
    {
        var (session, _) = ServerWithDefaults();
        using (session)
        {
            byte[] header = [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0x01, 1, 2, 3, 4]; // 16 MiB + 1, masked
            var counter = new Counter();
            session.Receive(header, ref counter, out _);
            Assert.Equal(ProtocolViolation.FrameTooBig, session.Violation);
            Assert.Equal(1009, WireFrames.CloseStatusOf(Assert.Single(Written(session)).Payload));
        }
    }

    [Fact]
    public void AMessageOver16MiBInFragmentsGets1009AtTheHeaderThatCrossesTheLimit()
    {
        var (session, _) = ServerWithDefaults();
        using (session)
        {
            byte[] eightMiB = new byte[8 * 1024 * 1024];
            byte[] input = [
                .. WireFrames.Client(WebSocketOpcode.Binary, eightMiB, fin: false),
                .. WireFrames.Client(WebSocketOpcode.Continuation, eightMiB, fin: false),
                .. WireFrames.Client(WebSocketOpcode.Continuation, [1], fin: true)];
            var counter = new Counter();
            session.Receive(input, ref counter, out _);
            Assert.Equal(2, counter.Frames);
            Assert.Equal(ProtocolViolation.MessageTooBig, session.Violation);
            Assert.Equal(1009, WireFrames.CloseStatusOf(Assert.Single(Written(session)).Payload));
        }
    }

    [Theory]
    [InlineData(0, 10_000, ProtocolViolation.None)]
    [InlineData(3, 3, ProtocolViolation.None)]
    [InlineData(3, 4, ProtocolViolation.TooManyFragments)]
    public void TheDecodersFragmentLimitIsConfigurableAndZeroMeansNone(int limit, int fragments, ProtocolViolation expected)
    {
        var decoder = new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxFragmentsPerMessage = limit });
        var input = new List<byte>();
        for (int i = 0; i < fragments; i++)
        {
            input.AddRange(WireFrames.Client(i == 0 ? WebSocketOpcode.Binary : WebSocketOpcode.Continuation, [7], fin: i == fragments - 1));
        }

        var counter = new Counter();
        OperationStatus status = decoder.DecodeFrames(input.ToArray(), ref counter, out _, out _);
        Assert.Equal(expected, decoder.Violation);
        Assert.Equal(expected == ProtocolViolation.None ? OperationStatus.NeedMoreData : OperationStatus.InvalidData, status);
        Assert.Equal(expected == ProtocolViolation.None ? fragments : limit, counter.Frames);
    }

    [Fact]
    public void NegativeFragmentLimitsAreRefused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new FrameDecoder(WebSocketRole.Server, new FrameDecoderOptions { MaxFragmentsPerMessage = -1 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new WebSocketSession(WebSocketRole.Server, new WebSocketSessionOptions { MaxFragmentsPerMessage = -1 }));
    }

    [Fact]
    public void AfterOurCloseAtMostOneMessageAndOneMiBAreReadWhileWaitingForTheirs()
    {
        var (session, _) = ServerWithDefaults();
        using (session)
        {
            Assert.True(session.StartClose((CloseStatus)1008, "slow consumer"));
            Written(session);
            byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[64 * 1024]);
            int sent = 0;
            const int Bound = (16 + 1) * 1024 * 1024;
            while (session.State == WebSocketSessionState.CloseSent && sent < 2 * Bound)
            {
                var counter = new Counter();
                session.Receive(frame, ref counter, out int consumed);
                Assert.Equal(frame.Length, consumed);
                sent += consumed;
            }

            Assert.Equal(WebSocketSessionState.Closed, session.State);
            Assert.Equal(SessionTimerResult.CloseTimeout, session.Timeout);
            Assert.InRange(sent, Bound, Bound + frame.Length);
        }
    }

    [Fact]
    public void APeerThatAnswersOurCloseAfterSomeDataClosesCleanly()
    {
        var (session, _) = ServerWithDefaults();
        using (session)
        {
            Assert.True(session.StartClose());
            var counter = new Counter();
            session.Receive([.. WireFrames.Client(WebSocketOpcode.Binary, new byte[100_000]), .. WireFrames.Client(WebSocketOpcode.Close, [0x03, 0xE8])], ref counter, out _);
            Assert.Equal(WebSocketSessionState.Closed, session.State);
            Assert.Null(session.Timeout);
            Assert.Equal((CloseStatus)1000, session.ReceivedCloseStatus);
        }
    }

    /// <summary>Sends a 16 MiB frame's header and first byte, then <paramref name="bytesPerSecond"/> a second for
    /// <paramref name="seconds"/> seconds; returns when the session gave up, or the seconds ran out.</summary>
    private static (int Seconds, List<(WebSocketOpcode Opcode, byte[] Payload)> Written) Trickle(
        WebSocketSession session, FakeTimeProvider time, int bytesPerSecond, int seconds)
    {
        byte[] start = [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 7]; // 16 MiB, mask key 0, one byte
        var counter = new Counter();
        session.Receive(start, ref counter, out _);
        byte[] chunk = new byte[bytesPerSecond];
        for (int second = 1; second <= seconds; second++)
        {
            time.Advance(TimeSpan.FromSeconds(1));
            session.Receive(chunk, ref counter, out _);
            if (session.State != WebSocketSessionState.Open)
            {
                return (second, Written(session));
            }
        }

        return (seconds, Written(session));
    }

    [Fact]
    public void AFrameTrickledBelow240BytesASecondGets1008AfterTheGracePeriod()
    {
        var pool = new CountingPool();
        var time = new FakeTimeProvider();
        using var session = new WebSocketSession(WebSocketRole.Server, WebSocketSessionOptions.Default with { TimeProvider = time, Pool = pool });
        var (seconds, written) = Trickle(session, time, bytesPerSecond: 100, seconds: 60);
        Assert.Equal(6, seconds); // the first check after the 5 s grace: 601 bytes in 6 s
        Assert.Equal(ProtocolViolation.FrameTooSlow, session.Violation);
        Assert.Equal(1008, WireFrames.CloseStatusOf(Assert.Single(written).Payload));
        Assert.Equal(0, pool.Outstanding); // the gathered bytes went back to the pool
    }

    [Fact]
    public void AFrameArrivingFasterThanTheMinimumIsNeverGivenUp()
    {
        var (session, time) = ServerWithDefaults();
        using (session)
        {
            var (_, written) = Trickle(session, time, bytesPerSecond: 250, seconds: 120);
            Assert.Equal(WebSocketSessionState.Open, session.State);
            Assert.Empty(written);
        }
    }

    [Fact]
    public void AMinimumRateOfZeroLetsAFrameTrickleForever()
    {
        var time = new FakeTimeProvider();
        using var session = new WebSocketSession(WebSocketRole.Server, WebSocketSessionOptions.Default with { TimeProvider = time, MinFrameDataRate = 0 });
        var (_, written) = Trickle(session, time, bytesPerSecond: 1, seconds: 120);
        Assert.Equal(WebSocketSessionState.Open, session.State);
        Assert.Empty(written);
    }

    [Theory]
    [InlineData(100)]
    [InlineData(3000)]
    [InlineData(50_000)]
    public void AFrameInPiecesHoldsAtMostTwiceItsBytesPlus4KiBAndArrivesWhole(int piece)
    {
        var pool = new CountingPool();
        using var session = new WebSocketSession(WebSocketRole.Server, WebSocketSessionOptions.Default with { Pool = pool, MinFrameDataRate = 0 });
        byte[] payload = new byte[300_000];
        new Random(piece).NextBytes(payload);
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, payload);
        var frames = new List<byte[]>();
        var recorder = new Recorder(frames);
        int offset = 0;
        while (offset < frame.Length)
        {
            int length = Math.Min(piece, frame.Length - offset);
            session.Receive(frame.AsSpan(offset, length), ref recorder, out int consumed);
            offset += consumed;
            if (frames.Count == 0)
            {
                long received = offset;
                Assert.True(pool.HeldBytes <= (2 * received) + 4096, $"{pool.HeldBytes} B held for {received} B received");
            }
        }

        Assert.Equal(payload, Assert.Single(frames));
        Assert.Equal(0, pool.Outstanding);
    }

    private readonly struct Recorder(List<byte[]> frames) : IFrameHandler
    {
        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            frames.Add(payload.ToArray());
            return true;
        }
    }
}
