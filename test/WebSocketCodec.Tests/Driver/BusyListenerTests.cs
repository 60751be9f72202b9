using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Driver;

/// <summary>Sends from other threads while the read loop's listener is busy inside a read: they never wait for it. Whole
/// messages wait in the websocket's queue (at most a high water mark's worth) and leave right behind the read, in order;
/// a fragment waits for the read's end.</summary>
public sealed class BusyListenerTests
{
    private sealed class BlockingListener : IWebSocketFrameListener, IDisposable
    {
        public readonly ManualResetEventSlim Holding = new();
        public readonly ManualResetEventSlim Release = new();

        public void Dispose()
        {
            Holding.Dispose();
            Release.Dispose();
        }

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Holding.Set();
            Release.Wait(TimeSpan.FromSeconds(30));
        }
    }

    private const int HighWaterMark = 8 * 1024;

    /// <summary>Has the read loop (another thread) read one frame and block in its listener; returns that read once the
    /// listener holds.</summary>
    private static Task HoldTheLoop(WebSocketDriver driver, BlockingListener listener)
    {
        byte[] frame = WireFrames.Client(WebSocketOpcode.Text, "go"u8.ToArray());
        Task read = Task.Run(() =>
        {
            driver.Receive(frame.AsSpan());
            driver.ReadComplete();
        });

        Assert.True(listener.Holding.Wait(TimeSpan.FromSeconds(10)));
        return read;
    }

    [Fact]
    public async Task TheQueueHoldsAHighWaterMarksWorthAndEmptiesInOrderBehindTheRead()
    {
        var transport = new BufferTransport();
        var options = WebSocketSessionOptions.Default with { OutboundHighWaterMark = HighWaterMark, OutboundLowWaterMark = HighWaterMark / 2 };
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server, options);
        using var listener = new BlockingListener();
        driver.Start(listener);
        Task read = HoldTheLoop(driver, listener);
        int queued = 0;
        ValueTask fragment;
        try
        {
            while (queued < 100 && driver.Sender.TrySend(WebSocketOpcode.Binary, Payload((byte)queued)))
            {
                queued++;
            }

            // 1,014 bytes each as counted (payload and the largest header): eight fit in 8 KiB, the ninth does not.
            Assert.Equal(HighWaterMark / (1000 + FrameHeaderReader.MaxHeaderLength), queued);
            Assert.Equal(0, transport.Committed.Length); // nothing reached the transport while the loop owns the output
            Assert.False(driver.Sender.TrySend(WebSocketOpcode.Binary, [1], fin: false));
            fragment = driver.Sender.SendAsync(WebSocketOpcode.Binary, new byte[] { 0xF0 }, fin: false);
            Assert.False(fragment.IsCompleted); // it waits for the read's end (asynchronously: this thread goes on)
        }
        finally
        {
            listener.Release.Set();
        }

        await read.WaitAsync(TimeSpan.FromSeconds(10));
        await fragment.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        await driver.Sender.SendAsync(WebSocketOpcode.Continuation, new byte[] { 0xF1 }, fin: true);

        // The queued messages in the order sent, then the fragmented message.
        ReadOnlySpan<byte> wire = transport.Committed;
        for (int i = 0; i < queued; i++)
        {
            Assert.Equal([0x82, 126, 0x03, 0xE8], wire[..4].ToArray());
            Assert.Equal((byte)i, wire[4]);
            wire = wire[1004..];
        }

        Assert.Equal(new byte[] { 0x02, 1, 0xF0, 0x80, 1, 0xF1 }, wire.ToArray());
    }

    [Fact]
    public async Task FlushedAsyncFromAnotherThreadWaitsForTheReadAndCountsWhatWasQueued()
    {
        var transport = new BufferTransport();
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server);
        using var listener = new BlockingListener();
        driver.Start(listener);
        Task read = HoldTheLoop(driver, listener);
        Task<bool> flushed;
        try
        {
            await driver.Sender.SendAsync(WebSocketOpcode.Text, "queued"u8.ToArray());
            flushed = driver.Sender.FlushedAsync();
            Assert.False(flushed.IsCompleted);
        }
        finally
        {
            listener.Release.Set();
        }

        Assert.True(await flushed.WaitAsync(TimeSpan.FromSeconds(10)));
        await read;
        Assert.Equal([0x81, 6, .. "queued"u8], transport.Committed.ToArray());
        Assert.Equal(transport.Committed.Length, transport.FlushedBytes);
    }

    [Fact]
    public async Task AFlushThatCompletesWhileTheListenerIsBusyIsEndedByTheLoopAfterItsRead()
    {
        var transport = new BufferTransport();
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server);
        using var listener = new BlockingListener();
        driver.Start(listener);
        transport.HoldNextFlush = true;
        await driver.Sender.SendAsync(WebSocketOpcode.Text, "first"u8.ToArray()); // the loop is idle: it goes out now
        TaskCompletionSource<bool> held = Assert.IsType<TaskCompletionSource<bool>>(transport.HeldFlush);
        Task read = HoldTheLoop(driver, listener);
        Task completed;
        try
        {
            // The flush's end runs on the thread that completes it: it must not wait for the busy listener (before, it
            // took the output's lock and waited until the listener returned).
            completed = Task.Run(() => held.SetResult(true));
            await completed.WaitAsync(TimeSpan.FromSeconds(10));
            Assert.True(read.IsCompleted is false, "the listener is still inside its read");
            Assert.Equal(7, driver.UnflushedBytes); // the end of that flush was left to the loop
        }
        finally
        {
            listener.Release.Set();
        }

        await read.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(await driver.Sender.FlushedAsync().WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.Equal([0x81, 5, .. "first"u8], transport.Committed.ToArray());
        Assert.Equal(1, transport.Flushes);
        Assert.True(driver.IsWritable);
    }

    [Fact]
    public async Task APingBetweenFragmentsKeepsItsPlaceWhenTheLoopIsBusy()
    {
        // The soak found it: a Ping queued like a whole message waited behind the fragmented message in progress, so
        // the peer echoed the message before it answered the Ping.
        var transport = new BufferTransport();
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server);
        using var listener = new BlockingListener();
        driver.Start(listener);
        await driver.Sender.SendAsync(WebSocketOpcode.Text, "a"u8.ToArray(), fin: false); // the loop is idle: appended
        Task read = HoldTheLoop(driver, listener);
        ValueTask ping;
        try
        {
            Assert.False(driver.Sender.TrySend(WebSocketOpcode.Ping, "p"u8)); // not queued
            ping = driver.Sender.SendAsync(WebSocketOpcode.Ping, "p"u8.ToArray());
            Assert.False(ping.IsCompleted); // it waits for the read's end
        }
        finally
        {
            listener.Release.Set();
        }

        await ping.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        await driver.Sender.SendAsync(WebSocketOpcode.Continuation, "b"u8.ToArray(), fin: true);
        await read.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(new byte[] { 0x01, 1, (byte)'a', 0x89, 1, (byte)'p', 0x80, 1, (byte)'b' }, transport.Committed.ToArray());
    }

    private static byte[] Payload(byte first)
    {
        byte[] payload = new byte[1000];
        payload[0] = first;
        return payload;
    }
}
