namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>
/// The read loop and the frame sender allocate nothing per frame: measured on the loop's own thread between one
/// frame's callback and the next one of the same read, which covers decoding, unmasking, validation, the session, the
/// listener call and the echo's write into the <c>PipeWriter</c>.
/// </summary>
[Collection(nameof(SerialCollection))]
public sealed class AllocationTests
{
    private sealed class MeasuringEcho(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        /// <summary>Frames before measuring: the pools fill up first (the output holds up to its pause threshold).</summary>
        private const int WarmUpFrames = 20_000;
        private long _last = -1;

        public int Frames;
        public long Pairs;
        public long Allocated;

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            long now = GC.GetAllocatedBytesForCurrentThread();
            if (_last >= 0 && Frames >= WarmUpFrames)
            {
                Allocated += now - _last;
                Pairs++;
            }

            Frames++;
            sender.Send(opcode, payload, fin);
            _last = now;
        }

        public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
        {
            _last = -1; // the next read starts afresh: per-read costs are not per-frame costs
            return default;
        }
    }

    [Theory]
    [InlineData(WebSocketOpcode.Binary, 8)]
    [InlineData(WebSocketOpcode.Binary, 125)]
    [InlineData(WebSocketOpcode.Text, 64)]
    [InlineData(WebSocketOpcode.Binary, 1000)]
    public async Task EchoingFramesAllocatesNothingPerFrame(WebSocketOpcode opcode, int length)
    {
        // Blocks for both pipes at their pause thresholds, and a locked (not per-thread) pool for frames gathered across
        // reads: the loop moves between threads, so a per-thread cache would refill now and then.
        var loop = new Loopback(pauseWriterThreshold: 256 * 1024, pool: new BlockPool(preallocate: 1024));
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = System.Buffers.ArrayPool<byte>.Create() });
        MeasuringEcho? echo = null;
        Task<WebSocketCloseInfo> run = channel.RunAsync(sender => echo = new MeasuringEcho(sender), Loopback.Timeout(60));
        byte[] payload = new byte[length];
        Array.Fill(payload, (byte)'a');
        byte[] batch = [.. Enumerable.Range(0, 500).SelectMany(_ => WireFrames.Client(opcode, payload))];
        Task<long> reader = Task.Run(() => loop.DiscardToEndAsync());
        CancellationToken timeout = Loopback.Timeout(60);
        for (int i = 0; i < 120; i++)
        {
            await loop.SendAsync(batch, timeout);
        }

        await loop.SendAsync(WireFrames.ClientClose(1000));
        await run.WaitAsync(Loopback.Timeout(60));
        await reader;

        Assert.Equal(60_000, echo!.Frames);
        Assert.True(echo.Pairs > 10_000, $"only {echo.Pairs} frame pairs shared a read");
        // An object per frame would cost at least 24 bytes.
        Assert.True(echo.Allocated / (double)echo.Pairs < 1.0, $"{echo.Allocated} bytes over {echo.Pairs} frames ");
    }

    [Fact]
    public async Task BroadcastingAllocatesNothingPerRecipient()
    {
        const int Members = 100, Broadcasts = 2_000;
        var group = new WebSocketGroup();
        var loops = new List<Loopback>();
        var runs = new List<Task<WebSocketCloseInfo>>();
        for (int i = 0; i < Members; i++)
        {
            var loop = new Loopback(pauseWriterThreshold: 1024 * 1024, pool: new BlockPool(preallocate: 16));
            var connection = new WebSocketConnection(loop.Server, WebSocketRole.Server);
            runs.Add(connection.RunAsync(new RecordingListener(), Loopback.Timeout(60)));
            loops.Add(loop);
            group.Add(connection);
        }

        // The peers read on this thread, without waiting between rounds: a pipe whose reader waits schedules it on
        // every flush (a thread-pool item: the pipe's allocation, not the broadcast's), and a pipe nobody reads grows
        // segment objects.
        long received = 0;
        byte[] payload = new byte[64];
        long allocated = 0;
        int sent = 0;
        for (int round = 0; round < 2 * Broadcasts / 10; round++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            int roundSent = 0;
            for (int i = 0; i < 10; i++)
            {
                roundSent += group.Broadcast(WebSocketOpcode.Binary, payload).Sent;
            }

            if (round >= Broadcasts / 10)
            {
                allocated += GC.GetAllocatedBytesForCurrentThread() - before; // the first half warms pools and queues up
                sent += roundSent;
            }

            foreach (Loopback loop in loops)
            {
                received += loop.DiscardPending();
            }
        }

        foreach (Loopback loop in loops)
        {
            await loop.SendAsync(WireFrames.ClientClose(1000));
        }

        await Task.WhenAll(runs).WaitAsync(TimeSpan.FromSeconds(60));
        foreach (Loopback loop in loops)
        {
            received += loop.DiscardPending();
        }

        Assert.Equal(Members * Broadcasts, sent);
        Assert.True(received >= Members * 2L * Broadcasts * 66, $"{received} bytes received");
        // The frame object is per broadcast (tens of bytes over 100 recipients); anything per recipient is at least 24.
        Assert.True(allocated / (double)sent < 1.0, $"{allocated} bytes over {sent} recipients");
    }
}
