using System.Collections.Concurrent;
using System.Diagnostics;

namespace WebSocketCodec.Tests.Driver;

/// <summary>Writability changes reach the listener in order when the thread that fills the output and the one whose
/// flush drains it report at once (the contract suite's group burst saw "writable" before "not writable" under load).</summary>
public sealed class WritabilityRaceTests
{
    [Fact]
    public async Task ReportsAlternateStartNotWritableAndEndWithTheTrueState()
    {
        // Eight websockets at once on two cores: the reporting threads get preempted between deciding and telling.
        await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => Task.Run(BurstsAsync)));
    }

    private static async Task BurstsAsync()
    {
        var transport = new BufferTransport(chunkSize: 64 * 1024, keepBytes: false) { FlushOnThreadPool = true };
        var options = new WebSocketSessionOptions
        {
            OutboundHighWaterMark = 4 * 1024,
            OutboundLowWaterMark = 1024,
            SlowConsumerTimeout = TimeSpan.FromSeconds(30), // arms the timer on every "not writable": a longer report
        };
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server, options);
        var listener = new RecordingListener();
        driver.Start(listener);
        byte[] payload = new byte[1000];
        var bursts = 0;
        long started = Stopwatch.GetTimestamp();
        while (bursts < 1_000 && Stopwatch.GetElapsedTime(started) < TimeSpan.FromSeconds(5))
        {
            for (int i = 0; i < 64 && driver.Sender.TrySend(WebSocketOpcode.Binary, payload); i++)
            {
            }

            bursts++;
            await driver.Sender.FlushedAsync().WaitAsync(TimeSpan.FromSeconds(10));
        }

        Assert.True(await driver.Sender.FlushedAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        // The flush that drained the output tells the listener after it completes the flushed signal: wait for the
        // "writable" report (bounded: a report that never comes fails here, as it should).
        await WebSocketCodec.Testing.Eventually.True(() => listener.Reports.LastOrDefault(), TimeSpan.FromSeconds(10));
        bool[] reports = [.. listener.Reports];
        Assert.NotEmpty(reports);
        Assert.False(reports[0]);
        for (int i = 1; i < reports.Length; i++)
        {
            Assert.True(reports[i] != reports[i - 1], $"report {i} repeats {reports[i]} ({reports.Length} reports over {bursts} bursts)");
        }

        Assert.True(driver.IsWritable);
        Assert.True(reports[^1]); // drained: the listener was told so last
    }

    private sealed class RecordingListener : IWebSocketFrameListener
    {
        public ConcurrentQueue<bool> Reports { get; } = new();

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }

        public void OnWritabilityChanged(bool writable)
        {
            Reports.Enqueue(writable);
            Thread.SpinWait(Random.Shared.Next(0, 500)); // a listener that takes a moment widens the race
        }
    }
}
