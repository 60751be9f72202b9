using System.Net.Sockets;
using System.Net.WebSockets;

namespace WebSocketCodec.Tests.Driver.SocketHost;

/// <summary>The driver hosted on a plain socket by a host that knows only the core package, against .NET's own
/// <see cref="ClientWebSocket"/> and raw bytes: echoes of every size and fragmentation, the keep-alive, a violation's
/// close, and the client's close.</summary>
public sealed class SocketHostTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(20);

    [Fact]
    public async Task ClientWebSocketGetsEveryEchoByteExactThenAClean1000()
    {
        using var bound = new CancellationTokenSource(Bound);
        await using SocketEchoServer server = SocketEchoServer.Start();
        using var client = new ClientWebSocket();
        await client.ConnectAsync(server.Uri, bound.Token);
        var random = new Random(5);
        byte[] receive = new byte[200_000];
        foreach (int size in new[] { 0, 1, 125, 126, 127, 65_535, 65_536, 65_537, 150_000 })
        {
            byte[] message = new byte[size];
            random.NextBytes(message);
            // Sent in three fragments when large enough: the echo is one message.
            int cut = size / 3;
            await client.SendAsync(message.AsMemory(0, cut), WebSocketMessageType.Binary, endOfMessage: false, bound.Token);
            await client.SendAsync(message.AsMemory(cut, cut), WebSocketMessageType.Binary, endOfMessage: false, bound.Token);
            await client.SendAsync(message.AsMemory(2 * cut), WebSocketMessageType.Binary, endOfMessage: true, bound.Token);
            int received = 0;
            ValueWebSocketReceiveResult result;
            do
            {
                result = await client.ReceiveAsync(receive.AsMemory(received), bound.Token);
                received += result.Count;
            }
            while (!result.EndOfMessage);

            Assert.Equal(WebSocketMessageType.Binary, result.MessageType);
            Assert.Equal(message, receive.AsSpan(0, received).ToArray());
        }

        await client.SendAsync(System.Text.Encoding.UTF8.GetBytes("héllo wörld"), WebSocketMessageType.Text, true, bound.Token);
        ValueWebSocketReceiveResult text = await client.ReceiveAsync(receive.AsMemory(), bound.Token);
        Assert.Equal(WebSocketMessageType.Text, text.MessageType);
        Assert.Equal("héllo wörld", System.Text.Encoding.UTF8.GetString(receive, 0, text.Count));

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "bye", bound.Token);
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
        WebSocketCloseInfo end = await server.Ends.Reader.ReadAsync(bound.Token);
        Assert.Equal(CloseStatus.NormalClosure, end.ReceivedStatus);
        Assert.Equal(CloseStatus.NormalClosure, end.SentStatus);
        Assert.Equal(WebSocketEndReason.Closed, end.EndReason);
    }

    [Fact]
    public async Task ClientWebSocketWithPermessageDeflateGetsCompressedEchoes()
    {
        using var bound = new CancellationTokenSource(Bound);
        await using SocketEchoServer server = SocketEchoServer.Start();
        using var client = new ClientWebSocket();
        client.Options.DangerousDeflateOptions = new WebSocketDeflateOptions();
        await client.ConnectAsync(server.Uri, bound.Token);
        await Eventually.True(() => server.Drivers.Count == 1);
        Assert.NotNull(server.Drivers[0].Deflate); // negotiated
        byte[] message = System.Text.Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("{\"price\": 42, \"name\": \"widget\"} ", 400)));
        byte[] receive = new byte[message.Length + 16];
        for (int i = 0; i < 5; i++)
        {
            await client.SendAsync(message, WebSocketMessageType.Text, true, bound.Token);
            int received = 0;
            ValueWebSocketReceiveResult result;
            do
            {
                result = await client.ReceiveAsync(receive.AsMemory(received), bound.Token);
                received += result.Count;
            }
            while (!result.EndOfMessage);

            Assert.Equal(message, receive.AsSpan(0, received).ToArray());
        }

        Assert.True(server.Drivers[0].Sender.CompressOutgoing);
        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, bound.Token);
        Assert.Equal(WebSocketEndReason.Closed, (await server.Ends.Reader.ReadAsync(bound.Token)).EndReason);
    }

    [Fact]
    public async Task TheKeepAlivePingsAnIdleClientAndItsPongsKeepItOpen()
    {
        using var bound = new CancellationTokenSource(Bound);
        var clock = new Microsoft.Extensions.Time.Testing.FakeTimeProvider(DateTimeOffset.UnixEpoch);
        var options = WebSocketSessionOptions.Default with
        {
            TimeProvider = clock,
            KeepAliveInterval = TimeSpan.FromSeconds(10),
            KeepAliveTimeout = TimeSpan.FromSeconds(5),
        };
        await using SocketEchoServer server = SocketEchoServer.Start(options);
        using var client = new ClientWebSocket();
        await client.ConnectAsync(server.Uri, bound.Token);
        // ClientWebSocket answers Pings only while a receive is pending.
        byte[] receive = new byte[64];
        ValueTask<ValueWebSocketReceiveResult> pending = client.ReceiveAsync(receive.AsMemory(), bound.Token);
        await Eventually.True(() => server.Drivers.Count == 1 && server.Drivers[0].IsStarted);
        WebSocketDriver driver = server.Drivers[0];
        for (int i = 0; i < 3; i++)
        {
            // Second by second until a Ping is due, giving the driver up to 100 ms after each second: it may arm its
            // timer after the test saw it start, and on a loaded machine a whole fake minute could otherwise pass
            // before it does (then the timer, armed late, waits for a clock the test no longer moves).
            int firings = driver.TimerFirings;
            var waited = System.Diagnostics.Stopwatch.StartNew();
            while (driver.TimerFirings == firings && waited.Elapsed < Bound)
            {
                clock.Advance(TimeSpan.FromSeconds(1));
                for (int look = 0; look < 20 && driver.TimerFirings == firings; look++)
                {
                    await Task.Delay(5);
                }
            }

            await Eventually.True(() => driver.TimerFirings > firings);
            await Eventually.True(() => server.Pongs > i); // the client's Pong reached the listener (OnPong)
            clock.Advance(TimeSpan.FromSeconds(6)); // past the keep-alive timeout: the Pong came in time
        }

        Assert.Equal(WebSocketSessionState.Open, driver.State);
        await client.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, bound.Token);
        ValueWebSocketReceiveResult closed = await pending;
        Assert.Equal(WebSocketMessageType.Close, closed.MessageType);
        WebSocketCloseInfo end = await server.Ends.Reader.ReadAsync(bound.Token);
        Assert.Equal(CloseStatus.NormalClosure, end.ReceivedStatus);
    }

    [Fact]
    public async Task AnUnmaskedFrameGets1002AndTheServersFin()
    {
        using var bound = new CancellationTokenSource(Bound);
        await using SocketEchoServer server = SocketEchoServer.Start();
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync("127.0.0.1", server.Uri.Port, bound.Token);
        string key = WebSocketHandshake.CreateKey();
        byte[] request = System.Text.Encoding.ASCII.GetBytes(
            $"GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n");
        byte[] unmasked = [0x81, 0x02, (byte)'h', (byte)'i']; // an unmasked Text frame right behind the request
        await socket.SendAsync((byte[])[.. request, .. unmasked], SocketFlags.None, bound.Token);
        var received = new List<byte>();
        byte[] buffer = new byte[1024];
        int read;
        while ((read = await socket.ReceiveAsync(buffer, SocketFlags.None, bound.Token)) > 0)
        {
            received.AddRange(buffer.AsSpan(0, read).ToArray()); // until the server's FIN
        }

        byte[] all = [.. received];
        int headEnd = all.AsSpan().IndexOf("\r\n\r\n"u8) + 4;
        Assert.StartsWith("HTTP/1.1 101 ", System.Text.Encoding.ASCII.GetString(all, 0, headEnd));
        Assert.Equal(0x88, all[headEnd]); // a final Close
        int payload = all[headEnd + 1]; // unmasked, short: status and reason
        Assert.InRange(payload, 2, 125);
        Assert.Equal(1002, (all[headEnd + 2] << 8) | all[headEnd + 3]);
        Assert.Equal(headEnd + 2 + payload, all.Length); // nothing after the Close

        socket.Shutdown(SocketShutdown.Send); // our end: the server closes now, not at its close timeout
        WebSocketCloseInfo end = await server.Ends.Reader.ReadAsync(bound.Token);
        Assert.Equal(CloseStatus.ProtocolError, end.SentStatus);
        Assert.Equal(ProtocolViolation.UnmaskedFrame, end.Violation);
        Assert.Equal(WebSocketEndReason.ProtocolViolation, end.EndReason);
        Assert.Null(end.Error);
    }
}
