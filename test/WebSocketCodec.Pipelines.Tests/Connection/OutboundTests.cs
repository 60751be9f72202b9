namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>Inbound and outbound apart: a peer that stops reading never stalls the read loop or the timers; water
/// marks hold senders back; sends after our Close are dropped, not thrown.</summary>
public sealed class OutboundTests
{
    private sealed class EchoListener : IWebSocketFrameListener
    {
        public WebSocketFrameSender? Sender { get; set; }

        public int Dropped;

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            if (!Sender!.Send(opcode, payload, fin))
            {
                Dropped++;
            }
        }
    }

    [Fact]
    public async Task APeerThatStopsReadingIsGivenUpByTheKeepAliveAndTheLoopEnds()
    {
        // The transport takes 64 KiB and then holds every flush, like a socket whose peer does not read.
        var loop = new Loopback(pauseWriterThreshold: 64 * 1024);
        // The keep-alive gives the pump below time to fill the output past its high water mark first, even on a loaded
        // machine (with 200 ms each, a CI run under load saw the keep-alive end it while the output was still writable).
        var options = new WebSocketSessionOptions
        {
            KeepAliveInterval = TimeSpan.FromMilliseconds(800), KeepAliveTimeout = TimeSpan.FromMilliseconds(800),
            SlowConsumerTimeout = TimeSpan.Zero,
        };
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, options);
        var listener = new EchoListener { Sender = channel.Sender };
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());

        // Echo requests keep coming (so the idle and keep-alive clocks see input) while nothing is read back.
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[16 * 1024]);
        using var sending = new CancellationTokenSource(TimeSpan.FromSeconds(8));
        bool sawUnwritable = false;
        Task pump = Task.Run(async () =>
        {
            while (!run.IsCompleted && !sending.IsCancellationRequested)
            {
                await loop.SendAsync(frame, sending.Token);
                // Read before the end: once the transport is torn down, what its output reports is no longer the peer's.
                sawUnwritable |= !run.IsCompleted && !channel.IsWritable;
                await Task.Delay(5); // pacing: a steady trickle of input, not a wait for anything
            }
        });

        WebSocketCloseInfo info = await run.WaitAsync(TimeSpan.FromSeconds(10));
        sending.Cancel();
        await pump.ContinueWith(_ => { });

        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, info.EndReason);
        Assert.True(sawUnwritable, "the output went past its high water mark before the keep-alive gave the peer up");
    }

    [Fact]
    public async Task AGivenUpPeerIsTornDownEvenWhenItsLastBytesWaitBelowADrainedOutput()
    {
        // The transport takes 16 KiB before it holds a flush back, like Kestrel's response pipe in front of a socket:
        // what it took is "flushed" for the websocket, yet it reaches a peer that does not read no more than the rest.
        var loop = new Loopback(pauseWriterThreshold: 16 * 1024);
        var options = new WebSocketSessionOptions
        {
            KeepAliveInterval = TimeSpan.FromMilliseconds(200), KeepAliveTimeout = TimeSpan.FromMilliseconds(200),
            SlowConsumerTimeout = TimeSpan.Zero, CloseTimeout = TimeSpan.FromSeconds(30),
        };
        int aborts = 0;
        var channel = new WebSocketConnection(new AbortablePipe(loop.Server, () => Interlocked.Increment(ref aborts)), WebSocketRole.Server, options);
        var listener = new EchoListener { Sender = channel.Sender };
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());

        // One 32 KiB echo: the transport holds its flush back until the peer has read all of it.
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, new byte[32 * 1024]));
        byte[] echo = await loop.ReadAsync(4 + (32 * 1024));
        Assert.Equal(4 + (32 * 1024), echo.Length);

        // From now on the peer reads nothing: the keep-alive's Ping and then its Close are taken by the transport at
        // once (under its threshold), so our output is drained when the keep-alive gives the peer up.
        WebSocketCloseInfo info = await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, info.EndReason);
        Assert.Equal(1, Volatile.Read(ref aborts)); // torn down: completing the output alone would leave it open
        Assert.True(loop.ServerOutputCompleted()); // our direction was ended first, the Close behind the Ping
        var frames = WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal([WebSocketOpcode.Ping, WebSocketOpcode.Close], frames.Select(f => f.Opcode));
    }

    [Fact]
    public async Task AGivenUpPeerThatNeverHeldOurOutputBackIsNotTornDown()
    {
        // A peer that reads but never answers Pings: nothing of ours ever waited, so the Close is delivered and the
        // output ended in order, without a teardown behind it.
        var loop = new Loopback(pauseWriterThreshold: 16 * 1024);
        var options = new WebSocketSessionOptions
        {
            KeepAliveInterval = TimeSpan.FromMilliseconds(200), KeepAliveTimeout = TimeSpan.FromMilliseconds(200),
            CloseTimeout = TimeSpan.FromSeconds(30),
        };
        int aborts = 0;
        var channel = new WebSocketConnection(new AbortablePipe(loop.Server, () => Interlocked.Increment(ref aborts)), WebSocketRole.Server, options);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());

        WebSocketCloseInfo info = await run.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, info.EndReason);
        Assert.Equal(0, Volatile.Read(ref aborts));
        var frames = WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false);
        Assert.Equal([WebSocketOpcode.Ping, WebSocketOpcode.Close], frames.Select(f => f.Opcode));
    }

    [Fact]
    public async Task FlushedAsyncCompletesWhenTheTransportTookTheFramesNotWhenTheyWereAppended()
    {
        var loop = new Loopback(pauseWriterThreshold: 16 * 1024);
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { SlowConsumerTimeout = TimeSpan.Zero });
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        Assert.True(await channel.Sender.FlushedAsync()); // nothing sent yet: nothing to wait for

        await channel.Sender.SendAsync(WebSocketOpcode.Binary, new byte[32 * 1024]); // in the output, in order
        Task<bool> flushed = channel.Sender.FlushedAsync();
        await channel.Sender.SendAsync(WebSocketOpcode.Text, "later"u8.ToArray()); // not part of what it waits for
        Assert.False(flushed.IsCompleted); // the transport holds the flush back until the peer reads

        byte[] read = await loop.ReadAsync(4 + (32 * 1024));
        Assert.True(await flushed.WaitAsync(Loopback.Timeout()));
        Assert.True(await channel.Sender.FlushedAsync().WaitAsync(Loopback.Timeout())); // "later" as well, now
        Assert.True(read.Length >= 4 + (32 * 1024));

        await loop.SendAsync(WireFrames.ClientClose(1000));
        Assert.True((await run.WaitAsync(Loopback.Timeout())).IsClean);
    }

    [Fact]
    public async Task FlushedAsyncSaysFalseWhenTheOutputEndedBeforeTheTransportTookTheFrames()
    {
        var loop = new Loopback(pauseWriterThreshold: 16 * 1024);
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { SlowConsumerTimeout = TimeSpan.Zero });
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await channel.Sender.SendAsync(WebSocketOpcode.Binary, new byte[32 * 1024]);
        Task<bool> flushed = channel.Sender.FlushedAsync();
        Assert.False(flushed.IsCompleted);

        channel.Abort(); // the peer never read: the stuck flush is cancelled
        Assert.False(await flushed.WaitAsync(Loopback.Timeout()));
        Assert.Equal(WebSocketEndReason.Aborted, (await run.WaitAsync(Loopback.Timeout())).EndReason);
    }

    [Fact]
    public async Task SendAsyncWaitsAboveTheHighMarkAndTrySendRefusesUntilThePeerReads()
    {
        var loop = new Loopback(pauseWriterThreshold: 16 * 1024);
        var options = new WebSocketSessionOptions { OutboundHighWaterMark = 32 * 1024, OutboundLowWaterMark = 8 * 1024, SlowConsumerTimeout = TimeSpan.Zero };
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, options);
        var changes = new List<bool>();
        channel.WritabilityChanged += (_, writable) => { lock (changes) { changes.Add(writable); } };
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());

        byte[] payload = new byte[8 * 1024];
        int sent = 0;
        ValueTask blocked = default;
        for (int i = 0; i < 100; i++)
        {
            ValueTask send = channel.Sender.SendAsync(WebSocketOpcode.Binary, payload);
            if (!send.IsCompleted)
            {
                blocked = send;
                break;
            }

            await send;
            sent++;
        }

        Assert.False(blocked.IsCompleted); // held back: the peer does not read
        Assert.InRange(sent, 2, 20);       // the transport's 16 KiB plus the 32 KiB high mark, in 8 KiB frames
        Assert.False(channel.IsWritable);
        Assert.False(channel.Sender.TrySend(WebSocketOpcode.Binary, payload));
        long unflushed = channel.UnflushedBytes;
        Assert.True(unflushed >= options.OutboundHighWaterMark, $"{unflushed} B unflushed");

        // The peer reads: the output drains, the waiting send goes out, TrySend works again.
        long received = 0;
        Task reader = Task.Run(async () => received = await loop.DiscardToEndAsync(20));
        await blocked.AsTask().WaitAsync(TimeSpan.FromSeconds(10));
        Assert.True(channel.Sender.TrySend(WebSocketOpcode.Binary, payload));
        await loop.SendAsync(WireFrames.ClientClose(1000));
        WebSocketCloseInfo info = await run.WaitAsync(TimeSpan.FromSeconds(10));
        await reader.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.True(info.IsClean);
        Assert.Equal((sent + 2) * (payload.Length + 4) + 4, received); // every frame, then our Close (1000: 4 B)
        lock (changes)
        {
            Assert.Equal([false, true], changes.Take(2));
        }
    }

    [Fact]
    public async Task SendsAfterOurCloseAreDroppedAndTheCloseStaysGraceful()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        var listener = new EchoListener { Sender = channel.Sender };
        Task<WebSocketCloseInfo> run = channel.RunAsync(listener, Loopback.Timeout());

        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "one"u8));
        byte[] echo = await loop.ReadAsync(5);
        Task<WebSocketCloseInfo> closing = channel.CloseAsync((CloseStatus)1001, "going away");
        // The peer had more in flight before it saw our Close: echoes of it are dropped, its Close is read.
        await loop.SendAsync([.. WireFrames.Client(WebSocketOpcode.Text, "two"u8), .. WireFrames.Client(WebSocketOpcode.Text, "three"u8), .. WireFrames.ClientClose(1001)]);
        WebSocketCloseInfo info = await run.WaitAsync(TimeSpan.FromSeconds(10));

        var frames = WireFrames.Read([.. echo, .. await loop.ReadToEndAsync()], WebSocketRole.Client, validateUtf8: false);
        Assert.Equal([WebSocketOpcode.Text, WebSocketOpcode.Close], frames.Select(f => f.Opcode));
        Assert.Equal(2, listener.Dropped);
        Assert.True(info.IsClean);
        Assert.Equal((CloseStatus)1001, info.SentStatus);
        Assert.Same(info, await closing); // CloseAsync completes with the end
    }

    [Fact]
    public async Task DataSendersRefuseACloseFrame()
    {
        var loop = new Loopback();
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await Assert.ThrowsAsync<ArgumentException>(async () => await channel.Sender.SendAsync(WebSocketOpcode.Close, new byte[] { 3, 232 }));
        Assert.Throws<ArgumentException>(() => channel.Sender.TrySend(WebSocketOpcode.Close, [3, 232]));
        await loop.SendAsync(WireFrames.ClientClose(1000));
        Assert.True((await run.WaitAsync(TimeSpan.FromSeconds(10))).IsClean);
        Assert.Single(WireFrames.Read(await loop.ReadToEndAsync(), WebSocketRole.Client, validateUtf8: false)); // the one Close, in answer
    }

    [Fact]
    public async Task ASlowConsumerGets1008AndIsGivenUpAfterTheCloseTimeout()
    {
        var loop = new Loopback(pauseWriterThreshold: 16 * 1024);
        var options = new WebSocketSessionOptions
        {
            OutboundHighWaterMark = 32 * 1024, OutboundLowWaterMark = 8 * 1024,
            SlowConsumerTimeout = TimeSpan.FromMilliseconds(300), CloseTimeout = TimeSpan.FromMilliseconds(300),
        };
        bool aborted = false;
        var channel = new WebSocketConnection(new AbortablePipe(loop.Server, () => aborted = true), WebSocketRole.Server, options);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());

        Task sender = Task.Run(async () =>
        {
            byte[] payload = new byte[4096];
            try
            {
                while (true)
                {
                    await channel.Sender.SendAsync(WebSocketOpcode.Binary, payload);
                }
            }
            catch (InvalidOperationException)
            {
                // Closing: no more data frames.
            }
        });

        WebSocketCloseInfo info = await run.WaitAsync(TimeSpan.FromSeconds(10));
        await sender.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Equal((CloseStatus)1008, info.SentStatus);
        Assert.Equal(WebSocketEndReason.SlowConsumer, info.EndReason); // the cause, not the close timeout that followed
        Assert.True(aborted); // even the Close could not be written: the connection is torn down
    }
}
