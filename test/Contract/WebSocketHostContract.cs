using static WebSocketCodec.Testing.Contract.ContractFrameReader;

namespace WebSocketCodec.Testing.Contract;

/// <summary>
/// The behaviour every host of the driver must show, written once and run against each host (a subclass per host
/// gives <see cref="Host"/>): every listener callback in order, <c>OnPong</c> included; the close exchange; a
/// violation's Close, then the server's FIN; a failed listener's 1011, from a frame callback or from the end of a read;
/// a peer that leaves without a Close; the idle, keep-alive and close timeouts; a peer that stops reading.
/// </summary>
public abstract partial class WebSocketHostContract
{
    private static readonly WebSocketSessionOptions Quick = WebSocketSessionOptions.Default with { CloseTimeout = TimeSpan.FromSeconds(30) };

    /// <summary>The host under test.</summary>
    protected abstract IContractHost Host { get; }

    private async Task<(IContractServer Server, ContractRecord Record)> StartAsync(
        ContractBehaviour behaviour, WebSocketSessionOptions? session = null, PerMessageDeflateOptions? deflate = null,
        int maxOpen = WebSocketAcceptOptions.Unlimited, ContractRecord? record = null)
    {
        record ??= new ContractRecord();
        IContractServer server = await Host.StartAsync(
            new WebSocketAcceptOptions { Session = session ?? Quick, Deflate = deflate, MaxConcurrentWebSockets = maxOpen },
            sender => new ContractListener(sender, behaviour, record));
        return (server, record);
    }

    [Fact]
    public async Task EchoesThenEndsWithACleanCloseAndTheServersFin()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "one");
            await client.SendAsync(WebSocketOpcode.Binary, "two");
            Assert.Equal((WebSocketOpcode.Text, "one"), Text(await client.ReadFrameAsync()));
            Assert.Equal((WebSocketOpcode.Binary, "two"), Text(await client.ReadFrameAsync()));
            await client.SendAsync(WireFrames.ClientClose(1000, "done"));
            Assert.Equal((1000, ""), await client.ReadCloseAsync());
            await client.AssertEndAsync(); // the server closes the transport first (RFC 6455 section 7.1.1)

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.Closed, end.EndReason);
            Assert.Equal(CloseStatus.NormalClosure, end.ReceivedStatus);
            Assert.Equal("done", end.ReceivedReason);
            Assert.Equal(CloseStatus.NormalClosure, end.SentStatus);
            Assert.Null(end.Error);
        }
    }

    [Fact]
    public async Task TheMetricsCountTheWebSocketItsTrafficAndItsEndByStatusAndCause()
    {
        // A close status no other test of the process sends: the closes measurement it tags is this websocket's.
        int status = 4000 + Random.Shared.Next(1000);
        using var metrics = new ContractMetrics();
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "counted");
            Assert.Equal((WebSocketOpcode.Text, "counted"), Text(await client.ReadFrameAsync()));
            await client.SendAsync(WireFrames.ClientClose((ushort)status, "metrics"));
            Assert.Equal((status, ""), await client.ReadCloseAsync());
            await client.AssertEndAsync();
            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal((CloseStatus)status, end.Status);
        }

        metrics.AssertOneCleanEnd(status, bytesReceived: 2 + 4 + "counted".Length, bytesSent: 2 + "counted".Length); // masked in, not out
    }

    [Fact]
    public async Task TheListenerGetsThePeersPongsInOrderWithItsFrames()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync([
                .. WireFrames.Client(WebSocketOpcode.Text, "a"u8),
                .. WireFrames.Client(WebSocketOpcode.Pong, "unsolicited"u8),
                .. WireFrames.Client(WebSocketOpcode.Text, "b"u8),
            ]);
            Assert.Equal((WebSocketOpcode.Text, "a"), Text(await client.ReadFrameAsync()));
            Assert.Equal((WebSocketOpcode.Text, "b"), Text(await client.ReadFrameAsync()));
            Assert.Equal(["Text:a", "Pong:unsolicited", "Text:b"], record.Events.ToArray());
            await client.SendAsync(WireFrames.ClientClose(1000));
            Assert.Equal(1000, (await client.ReadCloseAsync()).Status);
            Assert.Equal(WebSocketEndReason.Closed, (await record.NextEndAsync()).EndReason);
        }
    }

    [Fact]
    public async Task AnUnmaskedFrameGets1002ThenTheServersFinAndNothingMoreIsDelivered()
    {
        using var metrics = new ContractMetrics();
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync([.. WireFrames.Frame(0x82, "bad"u8), .. WireFrames.Client(WebSocketOpcode.Text, "after"u8)]);
            Assert.Equal(1002, (await client.ReadCloseAsync()).Status);
            await client.AssertEndAsync(); // our output ended right after the Close, before the peer's answer
            await client.SendAsync(WireFrames.ClientClose(1002));
            client.Fin();

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.ProtocolViolation, end.EndReason);
            Assert.Equal(ProtocolViolation.UnmaskedFrame, end.Violation);
            Assert.Equal(CloseStatus.ProtocolError, end.SentStatus);
            Assert.Null(end.ReceivedStatus); // a failed connection reads nothing more, the peer's Close included
            Assert.Empty(record.Events);
        }

        // Counted by its rule, and the end by its cause (other tests' violations may be counted too).
        Assert.Contains(metrics.Measurements, m => m.Instrument == "websocketcodec.violations"
            && Equals(m.Tags.GetValueOrDefault("websocket.violation"), nameof(ProtocolViolation.UnmaskedFrame)));
        Assert.Contains(metrics.Measurements, m => m.Instrument == "websocketcodec.closes"
            && Equals(m.Tags.GetValueOrDefault("websocket.close.cause"), nameof(WebSocketEndReason.ProtocolViolation))
            && Equals(m.Tags.GetValueOrDefault("websocket.close.status"), (int)CloseStatus.ProtocolError));
    }

    [Theory]
    [InlineData("utf8")]
    [InlineData("length")]
    public async Task AViolationInsideAFrameEndsTheServersOutputAtOnceAndThePeersCloseIsNotRead(string shape)
    {
        // Both found inside a frame, where the bytes after them were once read as the rest of it: the server failed the
        // connection, so it ends its output at once (RFC 6455 section 7.1.7) instead of waiting for the rest (or for
        // the close timeout, 30 s here), and the peer's Close that follows is not processed.
        (byte[] violation, int status, ProtocolViolation rule) = shape switch
        {
            // A text frame announcing 60,000 bytes whose 3rd byte can start no UTF-8 sequence: 24 of its bytes sent.
            "utf8" => (WireFrames.Client(WebSocketOpcode.Text, [0x61, 0x62, 0xC0, 0xAF, .. new byte[59_996]])[..24], 1007, ProtocolViolation.InvalidTextUtf8),
            // FIN, Binary, masked, a 64-bit length with its most significant bit set, then the mask key.
            _ => (new byte[] { 0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4 }, 1002, ProtocolViolation.PayloadLengthOverflow),
        };
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(violation);
            Assert.Equal(status, (await client.ReadCloseAsync()).Status);
            await client.AssertEndAsync(); // the end of the server's output, with the rest of the frame never sent
            try
            {
                await client.SendAsync(WireFrames.ClientClose(1000)); // the peer answers instead of finishing the frame
            }
            catch (IOException) when (client.IsHttp2)
            {
                // The stream was already closed both ways.
            }

            client.Fin();
            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.ProtocolViolation, end.EndReason);
            Assert.Equal(rule, end.Violation);
            Assert.Equal((CloseStatus)status, end.SentStatus);
            Assert.Null(end.ReceivedStatus);
            Assert.Empty(record.Events);
        }
    }

    [Theory]
    [InlineData(ContractBehaviour.ThrowOnFrame)]
    [InlineData(ContractBehaviour.ThrowOnReadComplete)]
    public async Task AListenerThatFailsGets1011AndItsError(ContractBehaviour behaviour)
    {
        (IContractServer server, ContractRecord record) = await StartAsync(behaviour);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "x");
            (int status, string reason) = await client.ReadCloseAsync();
            Assert.Equal(1011, status);
            Assert.Equal("internal error", reason);
            await client.AssertEndAsync();
            client.Fin();

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.Error, end.EndReason);
            Assert.Equal(CloseStatus.InternalError, end.SentStatus);
            Assert.IsType<InvalidOperationException>(end.Error);
        }
    }

    [Fact]
    public async Task APeerThatLeavesWithoutACloseEndsAsTransportClosed()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "x");
            Assert.Equal((WebSocketOpcode.Text, "x"), Text(await client.ReadFrameAsync()));
            client.Fin();

            WebSocketCloseInfo end = await record.NextEndAsync();
            if (client.IsHttp2)
            {
                // .NET's client leaves an HTTP/2 stream only by resetting it: the read loop sees a transport error or
                // the host its end first, whichever comes first (a property of the HTTP/2 hosts).
                Assert.True(end.EndReason is WebSocketEndReason.TransportClosed or WebSocketEndReason.Error, end.ToString());
            }
            else
            {
                Assert.Equal(WebSocketEndReason.TransportClosed, end.EndReason);
            }

            Assert.Equal(CloseStatus.AbnormalClosure, end.Status);
            Assert.Null(end.SentStatus);
        }
    }

    [Fact]
    public async Task TheIdleTimeoutSends1001AndEndsAsIdleTimeout()
    {
        var idle = Quick with { IdleTimeout = TimeSpan.FromMilliseconds(300) };
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo, idle);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            (int status, string reason) = await client.ReadCloseAsync(); // nothing sent: the server gives up waiting
            Assert.Equal(1001, status);
            Assert.Equal("idle timeout", reason);
            await client.SendAsync(WireFrames.ClientClose(1001));
            await client.AssertEndAsync();

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.IdleTimeout, end.EndReason);
            Assert.Equal(CloseStatus.GoingAway, end.SentStatus);
        }
    }

    [Fact]
    public async Task APeerThatNeverAnswersPingsIsClosedByTheKeepAliveTimeout()
    {
        var keepAlive = Quick with { KeepAliveInterval = TimeSpan.FromMilliseconds(200), KeepAliveTimeout = TimeSpan.FromMilliseconds(300) };
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo, keepAlive);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            (WebSocketOpcode Opcode, byte[] Payload)? ping = await client.ReadFrameAsync();
            Assert.Equal(WebSocketOpcode.Ping, ping?.Opcode); // never answered
            if (await client.ReadCloseUnlessResetAsync() is (int status, string reason))
            {
                Assert.Equal(1001, status);
                Assert.Equal("keep-alive timeout", reason);
                await client.AssertGivenUpAsync(); // given up: the transport is closed without waiting for an answer
            }

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.KeepAliveTimeout, end.EndReason);
            Assert.Equal(CloseStatus.GoingAway, end.SentStatus);
            Assert.Null(end.ReceivedStatus);
        }
    }

    [Fact]
    public async Task CloseAsyncCompletesWhenTheHandshakeHasEndedWithHowItEnded()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.CloseOnFrame);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "please close");
            Assert.Equal((1000, "bye"), await client.ReadCloseAsync());
            Task<WebSocketCloseInfo> closing = await record.Closes.Reader.ReadAsync(RawHttp.Timeout());
            Assert.False(closing.IsCompleted); // our Close went out, but the peer has not answered (close timeout 30 s)

            await client.SendAsync(WireFrames.ClientClose(4001, "answered"));
            await client.AssertEndAsync();
            WebSocketCloseInfo closed = await closing.WaitAsync(RawHttp.Timeout());
            Assert.Same(await record.NextEndAsync(), closed);
            Assert.Equal(WebSocketEndReason.Closed, closed.EndReason);
            Assert.Equal(CloseStatus.NormalClosure, closed.SentStatus);
            Assert.Equal((CloseStatus)4001, closed.ReceivedStatus);
            Assert.Equal("answered", closed.ReceivedReason);
        }
    }

    [Fact]
    public async Task AnotherThreadsSendsAndCloseNeverWaitForABusyListenerAndLeaveInOrderAfterItsRead()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Hold);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "hold");
            WebSocketFrameSender sender = await record.Holding.Task.WaitAsync(RawHttp.Timeout());
            Task<WebSocketCloseInfo> closing;
            try
            {
                // The listener is blocked inside its read: each of these returns while it still is.
                await sender.SendAsync(WebSocketOpcode.Text, "other-1"u8.ToArray()).AsTask().WaitAsync(RawHttp.Timeout());
                Assert.True(sender.TrySend(WebSocketOpcode.Binary, "other-2"u8));
                Assert.True(sender.TrySendBatched(WebSocketOpcode.Text, "other-3"u8));
                Assert.False(sender.TrySend(WebSocketOpcode.Text, "a fragment"u8, fin: false)); // not while the loop owns the output
                closing = sender.CloseAsync((CloseStatus)4002, "after");
                Assert.False(sender.CanSend); // asked to close: later sends are refused...
                await Assert.ThrowsAsync<InvalidOperationException>(() => sender.SendAsync(WebSocketOpcode.Text, "late"u8.ToArray()).AsTask());
                Assert.False(record.Release.IsSet);
            }
            finally
            {
                record.Release.Set();
            }

            // ...the listener's too (a Close was asked for), and what was sent before goes ahead of the Close: the
            // loop's frame, then the others' in the order they were sent.
            Assert.False(await record.HeldSecondSent.Task.WaitAsync(RawHttp.Timeout()));
            Assert.Equal((WebSocketOpcode.Text, "held-1"), Text(await client.ReadFrameAsync()));
            Assert.Equal((WebSocketOpcode.Text, "other-1"), Text(await client.ReadFrameAsync()));
            Assert.Equal((WebSocketOpcode.Binary, "other-2"), Text(await client.ReadFrameAsync()));
            Assert.Equal((WebSocketOpcode.Text, "other-3"), Text(await client.ReadFrameAsync()));
            Assert.Equal((4002, "after"), await client.ReadCloseAsync());
            await client.SendAsync(WireFrames.ClientClose(4002, ""));
            await client.AssertEndAsync();
            WebSocketCloseInfo end = await closing.WaitAsync(RawHttp.Timeout());
            Assert.Equal(WebSocketEndReason.Closed, end.EndReason);
            Assert.Equal((CloseStatus)4002, end.SentStatus);
        }
    }

    [Fact]
    public async Task MessagesQueuedBehindABusyListenerGoBackToThePoolWhenTheWebSocketIsAborted()
    {
        var pool = new CountingPool();
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Hold, Quick with { Pool = pool });
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "hold");
            WebSocketFrameSender sender = await record.Holding.Task.WaitAsync(RawHttp.Timeout());
            try
            {
                for (int i = 0; i < 3; i++)
                {
                    await sender.SendAsync(WebSocketOpcode.Binary, new byte[1000]).AsTask().WaitAsync(RawHttp.Timeout());
                }

                Assert.True(pool.Outstanding >= 3); // each waits in a pooled copy
                sender.Driver.Abort();
            }
            finally
            {
                record.Release.Set();
            }

            Assert.Equal(WebSocketEndReason.Aborted, (await record.NextEndAsync()).EndReason);
            await Eventually.True(() => pool.Outstanding == 0); // the session's buffers and the queued copies alike
            Assert.Equal(0, pool.BadReturns);
        }
    }

    [Fact]
    public async Task TheMessageApiGetsWholeMessagesEchoesThemAndEndsWithTheHandshake()
    {
        var ended = new TaskCompletionSource<(List<string> Got, WebSocketCloseInfo End)>(TaskCreationOptions.RunContinuationsAsynchronously);
        IContractServer server = await Host.StartAsync(new WebSocketAcceptOptions { Session = Quick }, MessageWebSocket.Listen(messages => _ = ContractMessageApps.EchoMessagesAsync(messages, ended)));
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync([.. WireFrames.Client(WebSocketOpcode.Text, "frag"u8, fin: false), .. WireFrames.Client(WebSocketOpcode.Continuation, "mented"u8)]);
            await client.SendAsync(WebSocketOpcode.Binary, "whole");
            Assert.Equal((WebSocketOpcode.Text, "fragmented"), await client.ReadMessageAsync());
            Assert.Equal((WebSocketOpcode.Binary, "whole"), await client.ReadMessageAsync());
            await client.SendAsync(WireFrames.ClientClose(4002, "bye"));
            Assert.Equal((4002, ""), await client.ReadCloseAsync());
            await client.AssertEndAsync();

            await ContractMessageApps.AssertEchoedThenClosedAsync(ended, ["fragmented", "whole"], 4002, "bye");
        }
    }

    [Fact]
    public async Task AnAspNetCoreEchoLoopOnPipeWebSocketEchoesInPartsAndClosesWithThePeersStatus()
    {
        var ended = new TaskCompletionSource<(WebSocketCloseInfo End, System.Net.WebSockets.WebSocketState State, System.Net.WebSockets.WebSocketCloseStatus? Status)>(
            TaskCreationOptions.RunContinuationsAsynchronously);
        IContractServer server = await Host.StartAsync(
            new WebSocketAcceptOptions { Session = Quick }, MessageWebSocket.Listen(messages => _ = ContractMessageApps.EchoLikeAspNetCoreAsync(messages, bufferSize: 7, ended)));
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            const string Text = "longer than the application's buffer";
            await client.SendAsync(WebSocketOpcode.Text, Text);
            Assert.Equal((WebSocketOpcode.Text, Text), await client.ReadMessageAsync()); // sent on in parts of 7 bytes
            await client.SendAsync(WireFrames.ClientClose(4003, "done"));
            Assert.Equal((4003, ""), await client.ReadCloseAsync()); // answered by the library; the loop's CloseAsync adds nothing
            await client.AssertEndAsync();

            var (end, state, status) = await ended.Task.WaitAsync(RawHttp.Timeout());
            Assert.Equal(WebSocketEndReason.Closed, end.EndReason);
            Assert.Equal((CloseStatus)4003, end.ReceivedStatus);
            Assert.Equal(System.Net.WebSockets.WebSocketState.Closed, state);
            Assert.Equal((System.Net.WebSockets.WebSocketCloseStatus)4003, status);
        }
    }

    [Fact]
    public async Task WithDeflateOnTheListenerGetsInflatedMessagesAndItsAnswersGoCompressed()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo, deflate: new PerMessageDeflateOptions());
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server, offerDeflate: true);
            Assert.StartsWith("permessage-deflate", client.Extensions);
            string text = string.Concat(Enumerable.Repeat("compressible text ", 40));
            await client.SendAsync(WireFrames.Client(0xC1, ReferenceDeflate.Compress(System.Text.Encoding.UTF8.GetBytes(text)))); // FIN, RSV1, text
            await client.SendAsync(WebSocketOpcode.Binary, "plain"); // an uncompressed message in the same websocket
            Assert.Equal((WebSocketOpcode.Text, text), await client.ReadMessageAsync());
            Assert.True(client.LastMessageCompressed);
            Assert.Equal((WebSocketOpcode.Binary, "plain"), await client.ReadMessageAsync());
            Assert.Equal([$"Text:{text}", "Binary:plain"], record.Events);

            await client.SendAsync(WireFrames.ClientClose(1000));
            Assert.Equal(1000, (await client.ReadCloseAsync()).Status);
            Assert.Equal(WebSocketEndReason.Closed, (await record.NextEndAsync()).EndReason);
        }
    }

    [Fact]
    public async Task WithDeflateOffTheOfferIsDeclinedAndACompressedFrameGets1002()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server, offerDeflate: true);
            Assert.Null(client.Extensions);
            await client.SendAsync(WebSocketOpcode.Text, "plain");
            Assert.Equal((WebSocketOpcode.Text, "plain"), await client.ReadMessageAsync());
            Assert.False(client.LastMessageCompressed);
            await client.SendAsync(WireFrames.Client(0xC1, ReferenceDeflate.Compress("not negotiated"u8)));
            Assert.Equal(1002, (await client.ReadCloseAsync()).Status);
            await client.AssertEndAsync(); // our output ended right after the Close
            client.Fin(); // the server drained our side until its end

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.ProtocolViolation, end.EndReason);
            Assert.Equal(CloseStatus.ProtocolError, end.SentStatus);
            Assert.Equal(["Text:plain"], record.Events);
        }
    }

    [Fact]
    public async Task AHandshakeOverTheOpenWebSocketCapGets503UntilAnOpenOneHasEnded()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo, maxOpen: 2);
        await using (server)
        {
            using ContractClient first = await ContractClient.ConnectAsync(server);
            using ContractClient second = await ContractClient.ConnectAsync(server);
            (ContractClient? third, int status) = await ContractClient.TryConnectAsync(server);
            Assert.Null(third);
            Assert.Equal(503, status);

            await first.SendAsync(WireFrames.ClientClose(1000));
            Assert.Equal(1000, (await first.ReadCloseAsync()).Status);
            Assert.Equal(WebSocketEndReason.Closed, (await record.NextEndAsync()).EndReason);

            // Counted out when it ended (a continuation of its end, so the next handshake may race it: retry briefly).
            ContractClient? fourth = null;
            for (int attempt = 0; attempt < 50 && fourth is null; attempt++)
            {
                (fourth, status) = await ContractClient.TryConnectAsync(server);
                if (fourth is null)
                {
                    Assert.Equal(503, status);
                    await Task.Delay(20);
                }
            }

            Assert.NotNull(fourth);
            using (fourth)
            {
                await fourth.SendAsync(WebSocketOpcode.Text, "in");
                Assert.Equal((WebSocketOpcode.Text, "in"), Text(await fourth.ReadFrameAsync()));
            }
        }
    }

    [Fact]
    public async Task APeerThatNeverAnswersOurCloseIsGivenUpAtTheCloseTimeout()
    {
        var closing = Quick with { CloseTimeout = TimeSpan.FromMilliseconds(300) };
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.CloseOnFrame, closing);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "please close"); // the application closes; we never answer
            Assert.Equal((1000, "bye"), await client.ReadCloseAsync());
            await client.AssertGivenUpAsync(); // the server gave up at its close timeout while our side stays open

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.CloseTimeout, end.EndReason);
            Assert.Equal(CloseStatus.NormalClosure, end.SentStatus);
            Assert.Null(end.ReceivedStatus);
        }
    }

    [Fact]
    public async Task AFloodAboveTheHighMarkMakesTheWebSocketNotWritableUntilThePeerReadsItAll()
    {
        var marks = Quick with
        {
            OutboundHighWaterMark = 64 * 1024,
            OutboundLowWaterMark = 16 * 1024,
            SlowConsumerTimeout = TimeSpan.Zero, // a peer that takes its time is not given up here
        };
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Flood, marks);
        await using (server)
        {
            // Default socket buffers: a small fixed one would make TCP crawl (a window under one segment) once we read.
            using ContractClient client = await ContractClient.ConnectAsync(server);
            await client.SendAsync(WebSocketOpcode.Text, "flood"); // 8 MiB answered, and nothing read yet

            Assert.False(await record.NextWritabilityAsync()); // the transport holds it back: above the high mark
            Assert.False(record.Writability.Reader.TryPeek(out _)); // and it stays so while nothing is read

            for (int i = 0; i < ContractListener.FloodFrames; i++)
            {
                (WebSocketOpcode Opcode, byte[] Payload)? frame = await client.ReadFrameAsync();
                Assert.Equal(WebSocketOpcode.Binary, frame?.Opcode);
                Assert.Equal(ContractListener.FloodFrameSize, frame?.Payload.Length);
                Assert.Equal((byte)i, frame?.Payload[0]); // in the order sent
            }

            Assert.True(await record.NextWritabilityAsync()); // drained to the low mark: writable again
            await client.SendAsync(WireFrames.ClientClose(1000));
            Assert.Equal((1000, ""), await client.ReadCloseAsync());
            await client.AssertEndAsync();
            Assert.Equal(WebSocketEndReason.Closed, (await record.NextEndAsync()).EndReason);
            Assert.False(record.Writability.Reader.TryPeek(out _)); // one change each way, no flapping
        }
    }

    [Fact]
    public async Task APeerThatStopsReadingIsClosedAsASlowConsumer()
    {
        var slow = Quick with
        {
            OutboundHighWaterMark = 64 * 1024,
            OutboundLowWaterMark = 16 * 1024,
            SlowConsumerTimeout = TimeSpan.FromMilliseconds(500),
            CloseTimeout = TimeSpan.FromSeconds(1),
        };
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.Echo, slow);
        await using (server)
        {
            using ContractClient client = await ContractClient.ConnectAsync(server, receiveBufferSize: 4096);
            byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[64 * 1024]);
            Task sending = Task.Run(async () =>
            {
                try
                {
                    for (int i = 0; i < 2_000; i++)
                    {
                        await client.SendAsync(frame); // echo requests we never read the answers to
                    }
                }
                catch (Exception error) when (error is IOException or System.Net.Sockets.SocketException or ObjectDisposedException or OperationCanceledException or System.Net.Http.HttpRequestException)
                {
                    // The server gave us up and tore the connection down.
                }
            });

            WebSocketCloseInfo end = await record.NextEndAsync();
            Assert.Equal(WebSocketEndReason.SlowConsumer, end.EndReason);
            Assert.Equal(CloseStatus.PolicyViolation, end.SentStatus);
            client.Dispose();
            await sending;
        }
    }
}
