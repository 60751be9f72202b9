using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Pipelines.Tests.Client;

public sealed class ReconnectBackoffTests
{
    private static readonly ReconnectBackoff Backoff = new()
    {
        InitialDelay = TimeSpan.FromMilliseconds(100), MaxDelay = TimeSpan.FromSeconds(1), Multiplier = 2, Jitter = 0.5,
    };

    [Theory]
    [InlineData(1, 0.0, 100)]
    [InlineData(2, 0.0, 200)]
    [InlineData(4, 0.0, 800)]
    [InlineData(5, 0.0, 1000)] // capped
    [InlineData(1000, 0.0, 1000)] // capped, no overflow
    [InlineData(1, 1.0, 50)] // the whole jitter taken off: half
    [InlineData(3, 0.5, 300)] // 400 less a quarter
    public void TheDelayGrowsToItsCapAndJitterTakesUpToItsShare(int attempt, double random, double expectedMilliseconds) =>
        Assert.Equal(expectedMilliseconds, Backoff.DelayFor(attempt, random).TotalMilliseconds, 6);

    [Fact]
    public void DelaysOfRandomDrawsStayWithinTheJitterBand()
    {
        var random = new Random(7);
        for (int i = 0; i < 1000; i++)
        {
            TimeSpan delay = Backoff.DelayFor(3, random.NextDouble());
            Assert.InRange(delay.TotalMilliseconds, 200, 400);
        }
    }

    public static TheoryData<ReconnectBackoff> Invalid() =>
    [
        new ReconnectBackoff { InitialDelay = TimeSpan.FromMilliseconds(-1) },
        new ReconnectBackoff { InitialDelay = TimeSpan.FromSeconds(2), MaxDelay = TimeSpan.FromSeconds(1) },
        new ReconnectBackoff { Multiplier = 0.5 },
        new ReconnectBackoff { Multiplier = double.NaN },
        new ReconnectBackoff { Jitter = 1.5 },
        new ReconnectBackoff { Jitter = -0.1 },
        new ReconnectBackoff { MaxAttempts = 0 },
        new ReconnectBackoff { MaxElapsed = TimeSpan.Zero },
        new ReconnectBackoff { StableAfter = TimeSpan.FromSeconds(-1) },
    ];

    [Theory]
    [MemberData(nameof(Invalid))]
    public void OutOfRangeValuesAreRefusedWhenTheClientIsMade(ReconnectBackoff backoff)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new ReconnectingWebSocket(new Uri("ws://127.0.0.1:1/"), new ReconnectingWebSocketOptions { Backoff = backoff }));
    }

    [Fact]
    public void OnlyWsAndWssAreTaken() =>
        Assert.Throws<ArgumentException>(() => new ReconnectingWebSocket(new Uri("http://127.0.0.1:1/")));

    [Theory]
    [InlineData(1000, false)]
    [InlineData(1001, true)]
    [InlineData(1005, false)]
    [InlineData(1014, true)]
    [InlineData(3000, false)]
    public void CloseCodesFollowTheTable(int code, bool reconnects)
    {
        var closed = new WebSocketCloseInfo((CloseStatus)code, null, (CloseStatus)code, WebSocketEndReason.Closed, ProtocolViolation.None, null);
        Assert.Equal(reconnects, ReconnectPolicy.Default(closed, null));
    }

    [Fact]
    public void WithoutACloseItComesBackUnlessTheServerBrokeTheProtocol()
    {
        Assert.True(ReconnectPolicy.Default(new WebSocketCloseInfo(null, null, null, WebSocketEndReason.TransportClosed, ProtocolViolation.None, null), null));
        Assert.True(ReconnectPolicy.Default(new WebSocketCloseInfo(null, null, CloseStatus.GoingAway, WebSocketEndReason.KeepAliveTimeout, ProtocolViolation.None, null), null));
        Assert.False(ReconnectPolicy.Default(new WebSocketCloseInfo(null, null, CloseStatus.ProtocolError, WebSocketEndReason.ProtocolViolation, ProtocolViolation.ReservedOpcode, null), null));
    }

    [Fact]
    public void FailedAttemptsFollowTheTable()
    {
        Assert.True(ReconnectPolicy.Default(null, new WebSocketHandshakeException("refused")));
        Assert.True(ReconnectPolicy.Default(null, new WebSocketHandshakeException("busy", 503)));
        Assert.True(ReconnectPolicy.Default(null, new WebSocketHandshakeException("slow down", 429)));
        Assert.True(ReconnectPolicy.Default(null, new WebSocketHandshakeException("timeout", 408)));
        Assert.False(ReconnectPolicy.Default(null, new WebSocketHandshakeException("gone", 410)));
        Assert.False(ReconnectPolicy.Default(null, new WebSocketHandshakeException("bad accept", 101)));
        Assert.True(ReconnectPolicy.Default(null, new WebSocketHandshakeException("bad gateway", 502) { FromProxy = true }));
        Assert.False(ReconnectPolicy.Default(null, new WebSocketHandshakeException("credentials", 407) { FromProxy = true }));
        Assert.False(ReconnectPolicy.Default(null, new ArgumentException("a wrong option")));
    }
}
