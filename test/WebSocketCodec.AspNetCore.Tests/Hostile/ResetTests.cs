using System.Net.Sockets;
using System.Text;
using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// Peers that vanish with a TCP reset (linger 0) in the middle of the handshake or of a frame, and an HTTP/2 peer that
/// resets one stream mid-frame: the server side ends (the connection, the websocket), every pooled buffer comes back,
/// nothing is logged as a failure, and the others go on. (RST_STREAM mid-frame and the pool, alone:
/// Http2PoolTests.EveryBufferComesBackOnEveryPath.)
/// </summary>
public sealed class ResetTests(ITestOutputHelper output)
{
    // FIN, Binary; MASK, 126: a 16-bit length follows; 60,000 bytes; the mask key.
    private static readonly byte[] Header60000 = [0x82, 0xFE, 0xEA, 0x60, 0x11, 0x22, 0x33, 0x44];

    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
    public async Task AResetMidHandshakeEndsTheConnection(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);
        await server.Connections.WhenAtLeastAsync(1, bound.Token);

        Socket socket = await RawHttp.ConnectAsync(server.EndPoint(path));
        await socket.SendAsync(Encoding.ASCII.GetBytes("GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: webso"), SocketFlags.None, bound.Token);
        await server.Connections.WhenAtLeastAsync(2, bound.Token);
        Reset(socket);

        await server.Connections.WhenAtMostAsync(1, bound.Token); // the handshake ended with the connection
        output.WriteLine($"{path}: the reset handshake's connection ended; logged: {string.Join(" | ", server.Logs.Entries)}");
        await HostileServer.AssertEchoAsync(wellBehaved, "served after", bound.Token);
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }

    [Theory]
    [InlineData(HostilePath.Endpoint)]
    [InlineData(HostilePath.FastPath)]
    [InlineData(HostilePath.Lean)]
    public async Task AResetMidFrameEndsTheWebSocketAndReturnsItsBuffers(HostilePath path)
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        await using var wellBehaved = await server.OpenWellBehavedAsync(path, bound.Token);

        Socket socket = await RawHttp.ConnectAsync(server.EndPoint(path));
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo")), SocketFlags.None, bound.Token);
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(socket));
        await socket.SendAsync((byte[])[.. Header60000, .. new byte[30_000]], SocketFlags.None, bound.Token);
        await WhenHoldingAsync(server, 30_000, bound.Token);
        Reset(socket);

        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        output.WriteLine($"{path}: server end: {end}");
        Assert.Null(end.ReceivedStatus);
        Assert.Null(end.SentStatus);
        // The reset reaches the websocket by whichever comes first: its read fails (Error, with the reset), or the
        // host's notice that the connection is gone ends it (TransportClosed, the driver's TransportLost; seen once
        // in a full run on the endpoint path).
        Assert.True(
            end.EndReason == WebSocketEndReason.Error ? end.Error is not null : end.EndReason == WebSocketEndReason.TransportClosed,
            end.ToString());
        await server.WebSockets.WhenAtMostAsync(1, bound.Token);
        Assert.Equal(0, server.Pool.Outstanding); // the gathered half frame came back (the well-behaved one holds none)
        await HostileServer.AssertEchoAsync(wellBehaved, "served after", bound.Token);
        await server.AssertCleanEndAsync(wellBehaved, bound.Token);
    }

    [Fact]
    public async Task AnHttp2StreamResetMidFrameEndsThatWebSocketOnly()
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        await using HostileServer server = await HostileServer.StartAsync();
        var connection = new HttpMessageInvoker(Http2Requests.Handler());
        // The bystander answers the keep-alive Pings (our message API); the hostile stream is raw.
        MessageWebSocket other = await WebSocketHttp2Client.ConnectMessagesAsync(connection, server.Url(HostilePath.EndpointHttp2), cancellationToken: bound.Token);
        RawWebSocket reset = await RawWebSocket.OpenHttp2Async(server.BaseUrl, "/echo", connection);
        await HostileServer.AssertEchoAsync(other, "before", bound.Token);

        await reset.SendAsync([.. Header60000, .. new byte[30_000]]);
        await WhenHoldingAsync(server, 30_000, bound.Token);
        await reset.DisposeAsync(); // RST_STREAM (CANCEL) for that stream only

        WebSocketCloseInfo end = await server.NextEndAsync(bound.Token);
        output.WriteLine($"server end: {end}; open connections {server.Connections.Value}");
        Assert.Null(end.ReceivedStatus);
        await server.WebSockets.WhenAtMostAsync(1, bound.Token);
        Assert.Equal(0, server.Pool.Outstanding);
        Assert.Equal(1, server.Connections.Value); // the connection goes on
        await HostileServer.AssertEchoAsync(other, "on the same connection after", bound.Token);

        await server.AssertCleanEndAsync(other, bound.Token, connections: false);
        connection.Dispose();
        await server.Connections.WhenAtMostAsync(0, bound.Token);
    }

    /// <summary>Waits (polling: no event says "read") until the server holds a partial frame's bytes.</summary>
    private static async Task WhenHoldingAsync(HostileServer server, long bytes, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        await Eventually.True(() => server.Pool.OutstandingBytes >= bytes);
    }

    /// <summary>Closes with linger 0: the kernel sends RST instead of FIN.</summary>
    private static void Reset(Socket socket)
    {
        socket.LingerState = new LingerOption(true, 0);
        socket.Close();
    }
}
