using System.Buffers;
using Microsoft.Extensions.Time.Testing;

namespace WebSocketCodec.Tests.Driver;

/// <summary>The driver's timers against a port whose flushes the peer never takes, on a fake clock: each turn is run
/// by the test when the driver asked for one, so what the driver did at each step is counted, not waited for.</summary>
public sealed class DriverTimerTests
{
    [Fact]
    public async Task ATimerThatFiresBeforeTheKeepAliveIsDueLeavesAPausedPeerUnreadAndThePingStillGoes()
    {
        var clock = new FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var transport = new HeldTransport();
        var options = new WebSocketSessionOptions
        {
            TimeProvider = clock, KeepAliveInterval = TimeSpan.FromSeconds(1), KeepAliveTimeout = TimeSpan.FromSeconds(1),
            SlowConsumerTimeout = TimeSpan.Zero,
        };
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server, options);
        driver.Start(new EchoListener(driver.Sender)); // the keep-alive timer is armed for t = 1 s

        // t = 0.5 s: an echo request; its echo waits for a peer that does not read, so reading pauses.
        clock.Advance(TimeSpan.FromMilliseconds(500));
        driver.Receive(WireFrames.Client(WebSocketOpcode.Binary, new byte[100]).AsSpan());
        driver.ReadComplete();
        Assert.Equal(1, transport.Pauses);

        // t = 1 s: the timer fires half a second before the keep-alive is due (it counts from the input at 0.5 s).
        clock.Advance(TimeSpan.FromMilliseconds(500));
        Assert.Equal(1, driver.TimerFirings);
        driver.RunTurn();
        Assert.Equal(0, transport.Resumes); // it did nothing: reading stays paused (no fresh input to delay the Ping)

        // t = 1.5 s: due: the Ping is queued, and reading resumes to find its Pong.
        clock.Advance(TimeSpan.FromMilliseconds(500));
        Assert.Equal(2, driver.TimerFirings);
        driver.RunTurn();
        Assert.Equal(1, transport.Resumes);

        // t = 2.5 s: no Pong: the peer is given up.
        clock.Advance(TimeSpan.FromSeconds(1));
        driver.RunTurn();
        WebSocketCloseInfo end = await driver.Completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, end.EndReason);
        Assert.Equal(1, transport.Aborts); // even our Close could not be flushed: torn down
    }

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public async Task APeerThatReceivesWhatTheTransportHoldsIsNotSlowWhileItsFlushWaits(bool transportSeesBelow)
    {
        // The flush never completes (the kernel's buffers hold the bytes); the peer keeps receiving them, which the
        // transport sees (TCP_INFO's bytes acknowledged) or cannot see (-1). Seen, it is progress: not slow for three
        // timeouts, then slow between one and one and a quarter timeouts after it stopped. Unseen: slow after one.
        var clock = new FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var transport = new HeldTransport { Acknowledged = transportSeesBelow ? 0 : -1 };
        TimeSpan timeout = TimeSpan.FromSeconds(10), step = timeout / 4;
        var options = new WebSocketSessionOptions
        {
            TimeProvider = clock, KeepAliveInterval = TimeSpan.Zero, SlowConsumerTimeout = timeout,
            OutboundHighWaterMark = 1024, OutboundLowWaterMark = 512, CloseTimeout = TimeSpan.FromSeconds(5),
        };
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server, options);
        driver.Start(new EchoListener(driver.Sender));
        Assert.True(driver.Sender.TrySend(WebSocketOpcode.Binary, new byte[2000])); // the flush waits: not writable
        Assert.False(driver.IsWritable);

        TimeSpan now = TimeSpan.Zero, lastProgress = TimeSpan.Zero;
        for (int i = 0; i < 12 && transportSeesBelow; i++)
        {
            transport.Acknowledged += 100; // the peer took 100 more bytes of what the kernel holds
            lastProgress = now;
            clock.Advance(step);
            now += step;
            driver.RunTurn();
            Assert.Equal(WebSocketSessionState.Open, driver.State); // not slow: three timeouts while it kept receiving
        }

        for (int i = 0; i < 20 && driver.State == WebSocketSessionState.Open; i++)
        {
            clock.Advance(step);
            now += step;
            driver.RunTurn();
        }

        Assert.Equal(WebSocketSessionState.CloseSent, driver.State); // 1008 "slow consumer" started
        Assert.InRange(now - lastProgress, timeout, (timeout * 1.25) + step);
        for (int i = 0; i < 20 && !transport.Aborted; i++)
        {
            clock.Advance(step); // the close timeout: even our Close cannot be written
            driver.RunTurn();
        }

        WebSocketCloseInfo end = await driver.Completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketEndReason.SlowConsumer, end.EndReason);
        Assert.Equal(1, transport.Aborts);
    }

    private sealed class EchoListener(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => sender.Send(opcode, payload, fin);
    }

    /// <summary>A port whose flushes never complete until cancelled (a peer that does not read).</summary>
    private sealed class HeldTransport : IWebSocketTransport
    {
        private readonly ArrayBufferWriter<byte> _output = new();
        private TaskCompletionSource<bool>? _flush;

        public int Pauses;
        public int Resumes;
        public int Aborts;
        public long Acknowledged = -1;

        public long AcknowledgedBytes => Volatile.Read(ref Acknowledged);

        public bool Aborted => Volatile.Read(ref Aborts) > 0;

        public bool CanHalfClose => false;

        public Memory<byte> GetOutputMemory(int sizeHint) => _output.GetMemory(sizeHint);

        public void AdvanceOutput(int count) => _output.Advance(count);

        public ValueTask<bool> FlushAsync()
        {
            _flush = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            return new ValueTask<bool>(_flush.Task);
        }

        public void CancelPendingFlush() => _flush?.TrySetResult(false);

        public void OnOutputEnding(long bytes)
        {
        }

        public ValueTask EndOutputAsync(bool halfClose) => ValueTask.CompletedTask;

        public void Abort() => Interlocked.Increment(ref Aborts);

        public void PauseReading() => Interlocked.Increment(ref Pauses);

        public void ResumeReading() => Interlocked.Increment(ref Resumes);

        public void StopReading()
        {
        }

        public void ScheduleTurn()
        {
        }
    }
}
