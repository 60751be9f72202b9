namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>How a websocket ended, as <see cref="WebSocketCloseInfo.EndReason"/> tells it, and the graceful end that
/// <see cref="WebSocketConnection.DisposeAsync"/> gives.</summary>
public sealed class EndReasonTests
{
    [Fact]
    public async Task DisposeAsyncRunsTheCloseHandshake()
    {
        var loop = new Loopback();
        var pool = new CountingPool();
        var client = new WebSocketConnection(loop.Client, WebSocketRole.Client);
        Task<WebSocketCloseInfo> clientRun = client.RunAsync(new RecordingListener(), Loopback.Timeout());
        var server = new WebSocketConnection(loop.Server, WebSocketRole.Server, new WebSocketSessionOptions { Pool = pool });
        await server.DisposeAsync(); // never started: the close handshake runs on a loop of its own

        Assert.True(server.Completion.IsCompleted);
        WebSocketCloseInfo serverEnd = await server.Completion;
        Assert.Equal(WebSocketEndReason.Closed, serverEnd.EndReason);
        Assert.Equal(CloseStatus.NormalClosure, serverEnd.SentStatus);
        Assert.Equal(CloseStatus.NormalClosure, serverEnd.ReceivedStatus);
        WebSocketCloseInfo clientEnd = await clientRun.WaitAsync(Loopback.Timeout());
        Assert.True(clientEnd.IsClean);
        Assert.Equal(CloseStatus.NormalClosure, clientEnd.ReceivedStatus);
        pool.AssertBalanced();
    }

    [Fact]
    public async Task AnAbortIsReportedAsAborted()
    {
        var loop = new Loopback();
        var server = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = server.RunAsync(listener, Loopback.Timeout());
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "before"u8));
        server.Abort();

        WebSocketCloseInfo end = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(WebSocketEndReason.Aborted, end.EndReason);
        Assert.IsAssignableFrom<OperationCanceledException>(end.Error);
        Assert.False(end.IsClean);
        Assert.Same(end, await listener.Closed);
    }

    [Fact]
    public async Task ATransportTheHostSawGoEndsAsTransportClosedAndALaterAbortChangesNothing()
    {
        var loop = new Loopback();
        var server = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        var listener = new RecordingListener();
        Task<WebSocketCloseInfo> run = server.RunAsync(listener, Loopback.Timeout());
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "before"u8));
        server.Driver.TransportLost(); // as Kestrel's RequestAborted says it, from its own thread
        server.Abort(); // and the application's abort that may follow

        WebSocketCloseInfo end = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(WebSocketEndReason.TransportClosed, end.EndReason);
        Assert.Null(end.Error);
        Assert.Equal(CloseStatus.AbnormalClosure, end.Status);
        Assert.Same(end, await listener.Closed);
    }

    [Fact]
    public async Task APeerThatLeavesWithoutACloseIsReportedAsTransportClosed()
    {
        var loop = new Loopback();
        var server = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = server.RunAsync(new RecordingListener(), Loopback.Timeout());
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3]));
        await loop.FinAsync();

        WebSocketCloseInfo end = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(WebSocketEndReason.TransportClosed, end.EndReason);
        Assert.Null(end.ReceivedStatus);
        Assert.Equal(CloseStatus.AbnormalClosure, end.Status);
    }

    [Fact]
    public async Task AViolationIsReportedAsAProtocolViolationWithItsRule()
    {
        var loop = new Loopback();
        var server = new WebSocketConnection(loop.Server, WebSocketRole.Server);
        Task<WebSocketCloseInfo> run = server.RunAsync(new RecordingListener(), Loopback.Timeout());
        await loop.SendAsync(WireFrames.Server(WebSocketOpcode.Text, "unmasked"u8)); // a client must mask
        await loop.SendAsync(WireFrames.ClientClose(1000));

        WebSocketCloseInfo end = await run.WaitAsync(Loopback.Timeout());
        Assert.Equal(WebSocketEndReason.ProtocolViolation, end.EndReason);
        Assert.Equal(ProtocolViolation.UnmaskedFrame, end.Violation);
        Assert.Equal(CloseStatus.ProtocolError, end.SentStatus);
    }
}
