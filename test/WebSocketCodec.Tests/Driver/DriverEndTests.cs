namespace WebSocketCodec.Tests.Driver;

/// <summary>How a driver reports its end: to its transport once (<see cref="IWebSocketTransport.OnEnded"/>), then
/// through <see cref="WebSocketDriver.Completion"/>, which it makes only when someone asks (an idle websocket keeps no
/// task) and which is the same task however often, and whenever, it is asked for.</summary>
public sealed class DriverEndTests
{
    [Fact]
    public async Task CompletionAskedForOnlyAfterTheEndIsCompleteWithWhatTheTransportWasTold()
    {
        var transport = new EndCountingTransport();
        using var driver = new WebSocketDriver(transport.Port, WebSocketRole.Server, new WebSocketSessionOptions());
        driver.Start(new QuietListener());
        driver.Receive(WireFrames.Client(WebSocketOpcode.Close, WireFrames.ClosePayload(1000, "bye")).AsSpan());
        driver.ReadComplete();

        WebSocketCloseInfo told = await transport.Ended.Task.WaitAsync(TimeSpan.FromSeconds(10));
        Task<WebSocketCloseInfo> completion = driver.Completion;
        Assert.True(completion.IsCompletedSuccessfully);
        Assert.Same(told, await completion);
        Assert.Same(completion, driver.Completion);
        Assert.Equal(CloseStatus.NormalClosure, told.ReceivedStatus);
        Assert.Equal("bye", told.ReceivedReason);
        Assert.Equal(1, transport.EndedCalls);
        Assert.Same(completion, driver.CloseAsync()); // closing an ended websocket answers how it ended
    }

    [Fact]
    public async Task CompletionAskedForBeforeTheEndCompletesAfterTheTransportWasTold()
    {
        var transport = new EndCountingTransport();
        using var driver = new WebSocketDriver(transport.Port, WebSocketRole.Server, new WebSocketSessionOptions());
        transport.Driver = driver;
        driver.Start(new QuietListener());
        Task<WebSocketCloseInfo> completion = driver.Completion;
        Assert.Same(completion, driver.Completion);
        Assert.False(completion.IsCompleted);

        driver.Abort();
        WebSocketCloseInfo end = await completion.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(WebSocketEndReason.Aborted, end.EndReason);
        Assert.Same(end, await transport.Ended.Task);
        Assert.Equal(1, transport.EndedCalls);
        Assert.True(transport.EndedBeforeCompletion);
        Assert.Same(completion, driver.Completion);
    }

    [Fact]
    public async Task CompletionAskedForFromManyThreadsAtTheEndIsOneTask()
    {
        for (int round = 0; round < 50; round++)
        {
            var transport = new EndCountingTransport();
            using var driver = new WebSocketDriver(transport.Port, WebSocketRole.Server, new WebSocketSessionOptions());
            transport.Driver = driver;
            driver.Start(new QuietListener());
            using var go = new ManualResetEventSlim();
            Task<Task<WebSocketCloseInfo>>[] askers = [.. Enumerable.Range(0, 4).Select(_ => Task.Run<Task<WebSocketCloseInfo>>(() => { go.Wait(); return driver.Completion; }))];
            go.Set();
            driver.Abort();
            Task<WebSocketCloseInfo>[] seen = await Task.WhenAll(askers).WaitAsync(TimeSpan.FromSeconds(10));
            Assert.All(seen, task => Assert.Same(seen[0], task));
            Assert.Same(seen[0], driver.Completion);
            await seen[0].WaitAsync(TimeSpan.FromSeconds(10));
            Assert.Equal(1, transport.EndedCalls);
        }
    }

    [Fact]
    public async Task ATransportWhoseCloseThrowsItsOwnExceptionIsTornDownAndTheWebSocketStillEnds()
    {
        // As OpenSSL does now and then under SslStream.ShutdownAsync: an exception that is no IOException. Before, it
        // escaped the driver's end and Completion never completed (a lean TLS connection stayed open for good).
        var failure = new System.Security.Cryptography.CryptographicException("wrong version number");
        var transport = new EndCountingTransport();
        transport.Port.EndingOutput = () => ValueTask.FromException(failure);
        transport.Port.Aborting = () => throw new NotSupportedException("and its abort fails too");
        using var driver = new WebSocketDriver(transport.Port, WebSocketRole.Server, new WebSocketSessionOptions());
        transport.Driver = driver;
        driver.Start(new QuietListener());
        Task<WebSocketCloseInfo> completion = driver.Completion;

        driver.Receive(WireFrames.Client(WebSocketOpcode.Close, WireFrames.ClosePayload(1000, "bye")).AsSpan());
        driver.ReadComplete();
        WebSocketCloseInfo end = await completion.WaitAsync(TimeSpan.FromSeconds(10));

        Assert.Same(failure, end.Error);
        Assert.Equal(CloseStatus.NormalClosure, end.ReceivedStatus); // the exchange itself was complete
        Assert.True(transport.Port.Aborts >= 1, "the transport was not torn down");
        Assert.Equal(1, transport.EndedCalls);
    }

    private sealed class QuietListener : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }

    /// <summary>A port that keeps nothing, runs the turns the driver asks for on the thread pool, and counts the
    /// end's report.</summary>
    private sealed class EndCountingTransport
    {
        private int _endedCalls;

        public EndCountingTransport()
        {
            Port.TurnRequested = () => ThreadPool.QueueUserWorkItem(static self => self.Driver?.RunTurn(), this, preferLocal: false);
            Port.Ended = info =>
            {
                Interlocked.Increment(ref _endedCalls);
                EndedBeforeCompletion = Driver is { } driver && !driver.Completion.IsCompleted;
                Ended.TrySetResult(info);
            };
        }

        public BufferTransport Port { get; } = new(keepBytes: false);

        public TaskCompletionSource<WebSocketCloseInfo> Ended { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public int EndedCalls => Volatile.Read(ref _endedCalls);

        /// <summary>Whether the driver's completion was still pending when the transport was told.</summary>
        public bool EndedBeforeCompletion { get; private set; }

        public WebSocketDriver? Driver { get; set; }
    }
}
