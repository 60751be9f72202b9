using System.Text;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Testing.Contract;
using static WebSocketCodec.Testing.Contract.ContractFrameReader;

namespace WebSocketCodec.AspNetCore.Tests.Contract;

/// <summary>
/// The behaviour every client of the driver must show, written once and run against each client (a subclass per
/// client): the roles of <see cref="WebSocketHostContract"/> turned round. A raw server peer (<see cref="RawServerPeer"/>)
/// sends unmasked frames and checks that the client masks; the client runs the contract's listener. On top of what a
/// server shows, a client waits for the server to end the connection after the close exchange (RFC 6455 section
/// 7.1.1), within the close timeout.
/// </summary>
public abstract class WebSocketClientContract
{
    private static readonly WebSocketSessionOptions Quick = WebSocketSessionOptions.Default with { CloseTimeout = TimeSpan.FromSeconds(30) };

    /// <summary>Whether the client under test connects over HTTP/2 (RFC 8441, h2c prior knowledge).</summary>
    protected abstract bool Http2 { get; }

    /// <summary>Starts a raw server, connects the client under test and runs the contract's listener on it.</summary>
    private async Task<ClientRun> ConnectAsync(ContractBehaviour behaviour, WebSocketSessionOptions? session = null, bool deflate = false)
    {
        var record = new ContractRecord();
        return await ConnectAsync(
            connection => connection.RunAsync(sender => new ContractListener(sender, behaviour, record)), record, session, deflate);
    }

    /// <summary>Starts a raw server, connects the client under test and runs it with <paramref name="run"/>.</summary>
    private async Task<ClientRun> ConnectAsync(
        Func<WebSocketConnection, Task<WebSocketCloseInfo>> run, ContractRecord record, WebSocketSessionOptions? session = null, bool deflate = false)
    {
        RawServerHost host = await RawServerHost.StartAsync(Http2, answerDeflate: deflate);
        var options = new WebSocketClientOptions { Session = session ?? Quick, Deflate = deflate ? new PerMessageDeflateOptions() : null };
        HttpMessageInvoker? invoker = Http2 ? new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler()) : null;
        Task<WebSocketConnection> connecting = invoker is not null
            ? WebSocketHttp2Client.ConnectAsync(invoker, host.Url, options)
            : WebSocketClient.ConnectAsync(host.Url, options);
        RawServerPeer peer = await host.AcceptAsync();
        WebSocketConnection connection = await connecting.WaitAsync(RawHttp.Timeout());
        return new ClientRun(host, peer, connection, record, run(connection), invoker);
    }

    private sealed record ClientRun(
        RawServerHost Host, RawServerPeer Peer, WebSocketConnection Connection, ContractRecord Record, Task<WebSocketCloseInfo> Run,
        HttpMessageInvoker? Invoker) : IAsyncDisposable
    {
        public async ValueTask DisposeAsync()
        {
            Peer.End();
            Connection.Dispose();
            Invoker?.Dispose();
            await Host.DisposeAsync();
        }
    }

    [Fact]
    public async Task EchoesMaskedThenAnswersTheServersCloseAndEndsWhenTheServerEndsTheConnection()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync(WebSocketOpcode.Text, "one");
        await peer.SendAsync(WebSocketOpcode.Binary, "two");
        Assert.Equal((WebSocketOpcode.Text, "one"), Text(await peer.Frames.ReadFrameAsync())); // masked: the reader checks
        Assert.Equal((WebSocketOpcode.Binary, "two"), Text(await peer.Frames.ReadFrameAsync()));
        await peer.SendAsync(WireFrames.Server(WebSocketOpcode.Close, WireFrames.ClosePayload(1000, "done")));
        Assert.Equal((1000, ""), await peer.Frames.ReadCloseAsync());
        Assert.False(client.Run.IsCompleted); // the client waits for the server to end the connection first
        peer.End();

        WebSocketCloseInfo end = await client.Record.NextEndAsync();
        Assert.Same(end, await client.Run.WaitAsync(RawHttp.Timeout()));
        Assert.Equal(WebSocketEndReason.Closed, end.EndReason);
        Assert.Equal(CloseStatus.NormalClosure, end.ReceivedStatus);
        Assert.Equal("done", end.ReceivedReason);
        Assert.Equal(CloseStatus.NormalClosure, end.SentStatus);
        Assert.True(end.IsClean, end.ToString());
    }

    [Fact]
    public async Task TheListenerGetsTheServersPongsInOrderWithItsFrames()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync([
            .. WireFrames.Server(WebSocketOpcode.Text, "a"u8),
            .. WireFrames.Server(WebSocketOpcode.Pong, "unsolicited"u8),
            .. WireFrames.Server(WebSocketOpcode.Text, "b"u8),
        ]);
        Assert.Equal((WebSocketOpcode.Text, "a"), Text(await peer.Frames.ReadFrameAsync()));
        Assert.Equal((WebSocketOpcode.Text, "b"), Text(await peer.Frames.ReadFrameAsync()));
        Assert.Equal(["Text:a", "Pong:unsolicited", "Text:b"], client.Record.Events.ToArray());
    }

    [Fact]
    public async Task AMaskedFrameFromTheServerGets1002AndNothingMoreIsDelivered()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync([.. WireFrames.Client(WebSocketOpcode.Text, "masked"u8), .. WireFrames.Server(WebSocketOpcode.Text, "after"u8)]);
        Assert.Equal(1002, (await peer.Frames.ReadCloseAsync()).Status);
        peer.End();

        WebSocketCloseInfo end = await client.Run.WaitAsync(RawHttp.Timeout());
        Assert.Equal(WebSocketEndReason.ProtocolViolation, end.EndReason);
        Assert.Equal(ProtocolViolation.MaskedFrame, end.Violation);
        Assert.Equal(CloseStatus.ProtocolError, end.SentStatus);
        Assert.Empty(client.Record.Events);
    }

    [Theory]
    [InlineData(ContractBehaviour.ThrowOnFrame)]
    [InlineData(ContractBehaviour.ThrowOnReadComplete)]
    public async Task AListenerThatFailsGets1011AndItsError(ContractBehaviour behaviour)
    {
        await using ClientRun client = await ConnectAsync(behaviour);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync(WebSocketOpcode.Text, "x");
        Assert.Equal((1011, "internal error"), await peer.Frames.ReadCloseAsync());
        peer.End();

        WebSocketCloseInfo end = await client.Record.NextEndAsync();
        Assert.Equal(WebSocketEndReason.Error, end.EndReason);
        Assert.Equal(CloseStatus.InternalError, end.SentStatus);
        Assert.IsType<InvalidOperationException>(end.Error);
    }

    [Fact]
    public async Task AServerThatLeavesWithoutACloseEndsAsTransportClosed()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync(WebSocketOpcode.Text, "x");
        Assert.Equal((WebSocketOpcode.Text, "x"), Text(await peer.Frames.ReadFrameAsync()));
        peer.End();

        WebSocketCloseInfo end = await client.Run.WaitAsync(RawHttp.Timeout());
        Assert.Equal(WebSocketEndReason.TransportClosed, end.EndReason);
        Assert.Equal(CloseStatus.AbnormalClosure, end.Status);
        Assert.Null(end.SentStatus);
        Assert.Null(end.ReceivedStatus);
    }

    [Fact]
    public async Task CloseAsyncCompletesWhenTheServerHasAnsweredAndEndedTheConnection()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo);
        RawServerPeer peer = client.Peer;
        Task<WebSocketCloseInfo> closing = client.Connection.CloseAsync((CloseStatus)4001, "leaving");
        Assert.Equal((4001, "leaving"), await peer.Frames.ReadCloseAsync());
        await peer.SendAsync(WireFrames.Server(WebSocketOpcode.Close, WireFrames.ClosePayload(4001, "answered")));
        Assert.False(closing.IsCompleted); // the client waits for the server's end of the connection
        peer.End();

        WebSocketCloseInfo closed = await closing.WaitAsync(RawHttp.Timeout());
        Assert.Equal(WebSocketEndReason.Closed, closed.EndReason);
        Assert.Equal((CloseStatus)4001, closed.ReceivedStatus);
        Assert.Equal("answered", closed.ReceivedReason);
        Assert.True(closed.IsClean, closed.ToString());
    }

    [Fact]
    public async Task AServerThatKeepsTheConnectionAfterTheExchangeIsGivenUpAtTheCloseTimeout()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo, Quick with { CloseTimeout = TimeSpan.FromMilliseconds(500) });
        RawServerPeer peer = client.Peer;
        await peer.SendAsync(WireFrames.Server(WebSocketOpcode.Close, WireFrames.ClosePayload(1000)));
        Assert.Equal(1000, (await peer.Frames.ReadCloseAsync()).Status);
        // The server never ends the connection: the client closes it after the close timeout.

        WebSocketCloseInfo end = await client.Run.WaitAsync(RawHttp.Timeout());
        Assert.Equal(CloseStatus.NormalClosure, end.ReceivedStatus);
        Assert.Equal(CloseStatus.NormalClosure, end.SentStatus);
        await peer.AssertGivenUpAsync(); // the client ended the connection itself
    }

    [Fact]
    public async Task AServerThatNeverAnswersOurCloseIsGivenUpAtTheCloseTimeout()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo, Quick with { CloseTimeout = TimeSpan.FromMilliseconds(500) });
        RawServerPeer peer = client.Peer;
        Task<WebSocketCloseInfo> closing = client.Connection.CloseAsync();
        Assert.Equal(1000, (await peer.Frames.ReadCloseAsync()).Status);

        WebSocketCloseInfo end = await closing.WaitAsync(RawHttp.Timeout());
        Assert.Equal(WebSocketEndReason.CloseTimeout, end.EndReason);
        Assert.Null(end.ReceivedStatus);
        Assert.False(end.IsClean);
    }

    [Fact]
    public async Task AServerThatNeverAnswersPingsIsClosedByTheKeepAliveTimeout()
    {
        var keepAlive = Quick with { KeepAliveInterval = TimeSpan.FromMilliseconds(200), KeepAliveTimeout = TimeSpan.FromMilliseconds(300) };
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo, keepAlive);
        RawServerPeer peer = client.Peer;
        Assert.Equal(WebSocketOpcode.Ping, (await peer.Frames.ReadFrameAsync())?.Opcode); // masked, never answered

        WebSocketCloseInfo end = await client.Run.WaitAsync(RawHttp.Timeout());
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, end.EndReason);
        Assert.Equal(CloseStatus.GoingAway, end.SentStatus);
        Assert.Null(end.ReceivedStatus);
    }

    [Fact]
    public async Task WithDeflateTheListenerGetsInflatedMessagesAndItsAnswersGoCompressed()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Echo, deflate: true);
        RawServerPeer peer = client.Peer;
        Assert.True(peer.Deflate);
        string text = string.Concat(Enumerable.Repeat("compressible ", 40));
        await peer.SendAsync(WireFrames.Frame(0xC1, ReferenceDeflate.Compress(Encoding.UTF8.GetBytes(text))));
        Assert.Equal((WebSocketOpcode.Text, text), await peer.Frames.ReadMessageAsync());
        Assert.True(peer.Frames.LastMessageCompressed);
        Assert.Equal([$"Text:{text}"], client.Record.Events.ToArray());
    }

    [Fact]
    public async Task AnotherThreadsSendsAndCloseNeverWaitForABusyListenerAndLeaveInOrderAfterItsRead()
    {
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Hold);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync(WebSocketOpcode.Text, "hold");
        WebSocketFrameSender sender = await client.Record.Holding.Task.WaitAsync(RawHttp.Timeout());
        Task<WebSocketCloseInfo> closing;
        try
        {
            await sender.SendAsync(WebSocketOpcode.Text, "other-1"u8.ToArray()).AsTask().WaitAsync(RawHttp.Timeout());
            Assert.True(sender.TrySend(WebSocketOpcode.Binary, "other-2"u8));
            closing = sender.CloseAsync((CloseStatus)4002, "after");
            Assert.False(client.Record.Release.IsSet);
        }
        finally
        {
            client.Record.Release.Set();
        }

        Assert.Equal((WebSocketOpcode.Text, "held-1"), Text(await peer.Frames.ReadFrameAsync()));
        Assert.Equal((WebSocketOpcode.Text, "other-1"), Text(await peer.Frames.ReadFrameAsync()));
        Assert.Equal((WebSocketOpcode.Binary, "other-2"), Text(await peer.Frames.ReadFrameAsync()));
        Assert.Equal((4002, "after"), await peer.Frames.ReadCloseAsync());
        await peer.SendAsync(WireFrames.Server(WebSocketOpcode.Close, WireFrames.ClosePayload(4002)));
        peer.End();
        Assert.Equal(WebSocketEndReason.Closed, (await closing.WaitAsync(RawHttp.Timeout())).EndReason);
    }

    [Fact]
    public async Task TheMetricsCountTheWebSocketItsTrafficAndItsEndByStatusAndCause()
    {
        // A close status no other test of the process sends: the closes measurement it tags is this websocket's.
        int status = 4000 + Random.Shared.Next(1000);
        using var metrics = new ContractMetrics();
        await using (ClientRun client = await ConnectAsync(ContractBehaviour.Echo))
        {
            RawServerPeer peer = client.Peer;
            await peer.SendAsync(WebSocketOpcode.Text, "counted");
            Assert.Equal((WebSocketOpcode.Text, "counted"), Text(await peer.Frames.ReadFrameAsync()));
            await peer.SendAsync(WireFrames.Server(WebSocketOpcode.Close, WireFrames.ClosePayload((ushort)status, "metrics")));
            Assert.Equal(status, (await peer.Frames.ReadCloseAsync()).Status);
            peer.End();
            Assert.Equal((CloseStatus)status, (await client.Run.WaitAsync(RawHttp.Timeout())).Status);
        }

        metrics.AssertOneCleanEnd(status, bytesReceived: 2 + "counted".Length, bytesSent: 2 + 4 + "counted".Length); // a client masks out
    }

    [Fact]
    public async Task TheMessageApiGetsWholeMessagesEchoesThemAndEndsWithTheHandshake()
    {
        var ended = new TaskCompletionSource<(List<string> Got, WebSocketCloseInfo End)>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using ClientRun client = await ConnectAsync(
            connection =>
            {
                MessageWebSocket messages = connection.RunMessages();
                _ = ContractMessageApps.EchoMessagesAsync(messages, ended);
                return messages.Completion;
            },
            new ContractRecord());
        RawServerPeer peer = client.Peer;
        await peer.SendAsync([.. WireFrames.Server(WebSocketOpcode.Text, "frag"u8, fin: false), .. WireFrames.Server(WebSocketOpcode.Continuation, "mented"u8)]);
        await peer.SendAsync(WebSocketOpcode.Binary, "whole");
        Assert.Equal((WebSocketOpcode.Text, "fragmented"), await peer.Frames.ReadMessageAsync());
        Assert.Equal((WebSocketOpcode.Binary, "whole"), await peer.Frames.ReadMessageAsync());
        await peer.SendAsync(WireFrames.Server(WebSocketOpcode.Close, WireFrames.ClosePayload(4002, "bye")));
        Assert.Equal(4002, (await peer.Frames.ReadCloseAsync()).Status);
        peer.End();

        await ContractMessageApps.AssertEchoedThenClosedAsync(ended, ["fragmented", "whole"], 4002, "bye");
    }

    [Fact]
    public async Task AFloodAboveTheHighMarkMakesTheWebSocketNotWritableUntilTheServerReadsItAll()
    {
        var marks = Quick with
        {
            OutboundHighWaterMark = 64 * 1024,
            OutboundLowWaterMark = 16 * 1024,
            SlowConsumerTimeout = TimeSpan.Zero, // a server that takes its time is not given up here
        };
        await using ClientRun client = await ConnectAsync(ContractBehaviour.Flood, marks);
        RawServerPeer peer = client.Peer;
        await peer.SendAsync(WebSocketOpcode.Text, "flood"); // 8 MiB answered, and nothing read yet
        Assert.False(await client.Record.NextWritabilityAsync()); // the transport holds it back: above the high mark
        Assert.False(client.Record.Writability.Reader.TryPeek(out _)); // and it stays so while nothing is read

        for (int i = 0; i < ContractListener.FloodFrames; i++)
        {
            (WebSocketOpcode Opcode, byte[] Payload)? frame = await peer.Frames.ReadFrameAsync();
            Assert.Equal(WebSocketOpcode.Binary, frame?.Opcode);
            Assert.Equal(ContractListener.FloodFrameSize, frame?.Payload.Length);
            Assert.Equal((byte)i, frame?.Payload[0]); // in the order sent
        }

        Assert.True(await client.Record.NextWritabilityAsync()); // drained to the low mark: writable again
        Assert.False(client.Record.Writability.Reader.TryPeek(out _)); // one change each way, no flapping
    }
}

/// <summary>The client contract against <see cref="WebSocketClient"/> (HTTP/1.1 upgrade).</summary>
public sealed class Http11ClientContractTests : WebSocketClientContract
{
    protected override bool Http2 => false;
}

/// <summary>The client contract against <see cref="WebSocketHttp2Client"/> (RFC 8441 extended CONNECT, h2c).</summary>
public sealed class Http2ClientContractTests : WebSocketClientContract
{
    protected override bool Http2 => true;
}
