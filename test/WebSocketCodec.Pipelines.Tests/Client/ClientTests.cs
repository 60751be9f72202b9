using System.Buffers;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace WebSocketCodec.Pipelines.Tests.Client;

/// <summary>The HTTP/1.1 client against hand-written servers: frames behind the 101, the handshake timeout, wrong
/// answers, and a masked frame from a server.</summary>
public sealed class ClientTests
{
    /// <summary>Accepts one connection, reads the request head, and lets <paramref name="answer"/> reply.</summary>
    private static async Task<(Uri Url, Task Server)> ServeOnceAsync(Func<Socket, string, Task> answer)
    {
        var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        var url = new Uri($"ws://127.0.0.1:{((IPEndPoint)listener.LocalEndPoint!).Port}/chat");
        Task server = Task.Run(async () =>
        {
            using (listener)
            using (Socket socket = await listener.AcceptAsync(Loopback.Timeout()))
            {
                var head = new StringBuilder();
                byte[] one = new byte[1];
                while (!head.ToString().EndsWith("\r\n\r\n", StringComparison.Ordinal) && await socket.ReceiveAsync(one, Loopback.Timeout()) == 1)
                {
                    head.Append((char)one[0]);
                }

                await answer(socket, head.ToString());
            }
        });
        await Task.Yield();
        return (url, server);
    }

    private static string KeyOf(string head) =>
        head.Split("\r\n").First(l => l.StartsWith("Sec-WebSocket-Key:", StringComparison.OrdinalIgnoreCase))[18..].Trim();

    private static byte[] Accept(string head, string extra = "") =>
        Encoding.ASCII.GetBytes($"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {WebSocketHandshake.ComputeAccept(KeyOf(head))}\r\n{extra}\r\n");

    [Fact]
    public async Task FramesSentWithThe101AreNotLostAndOutboundFramesAreMasked()
    {
        byte[] fromClient = [];
        var (url, server) = await ServeOnceAsync(async (socket, head) =>
        {
            Assert.StartsWith("GET /chat HTTP/1.1\r\n", head, StringComparison.Ordinal);
            Assert.Contains("Host: 127.0.0.1:", head, StringComparison.Ordinal);
            Assert.Contains("X-Token: 42\r\n", head, StringComparison.Ordinal);
            Assert.Contains("Sec-WebSocket-Protocol: a, b\r\n", head, StringComparison.Ordinal);
            // The 101, a text frame and a Close 1000, all in one write.
            byte[] reply = [.. Accept(head, "Sec-WebSocket-Protocol: b\r\n"), 0x81, 0x02, (byte)'h', (byte)'i', 0x88, 0x02, 0x03, 0xE8];
            await socket.SendAsync(reply, Loopback.Timeout());
            var received = new List<byte>();
            byte[] buffer = new byte[256];
            int read;
            while (received.Count < 8 && (read = await socket.ReceiveAsync(buffer, Loopback.Timeout())) > 0) // the masked Close is 8 bytes
            {
                received.AddRange(buffer.AsSpan(0, read));
            }

            fromClient = [.. received];
            // As RFC 6455 §7.1.1 asks, the server closes the TCP connection first; the client waits for it.
        });

        var options = new WebSocketClientOptions { Subprotocols = ["a", "b"], Headers = [new("X-Token", "42")] };
        await using MessageWebSocket socket = await WebSocketClient.ConnectMessagesAsync(url, options);
        Assert.Equal("b", socket.Subprotocol);
        using (WebSocketMessage? message = await socket.ReceiveAsync(Loopback.Timeout()))
        {
            Assert.Equal("hi", message!.GetText());
        }

        WebSocketCloseInfo info = await socket.Completion.WaitAsync(Loopback.Timeout());
        Assert.True(info.IsClean);
        await server.WaitAsync(Loopback.Timeout());

        // The client answered the Close with a masked Close 1000.
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(OperationStatus.Done, decoder.ReadFrame(fromClient, out FrameHeader header, out Span<byte> payload, out _));
        Assert.True(header.IsMasked);
        Assert.Equal(WebSocketOpcode.Close, header.Opcode);
        Assert.Equal(new byte[] { 0x03, 0xE8 }, payload.ToArray());
    }

    [Fact]
    public async Task ASilentServerTimesTheHandshakeOut()
    {
        var silent = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var (url, server) = await ServeOnceAsync((_, _) => silent.Task); // says nothing until the client gave up
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() =>
            WebSocketClient.ConnectAsync(url, new WebSocketClientOptions { HandshakeTimeout = TimeSpan.FromMilliseconds(300) }));
        silent.SetResult();
        Assert.Contains("did not finish", error.Message, StringComparison.Ordinal);
        Assert.Null(error.StatusCode);
        await server;
    }

    [Theory]
    [InlineData("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", 403)]
    [InlineData("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: wrong\r\n\r\n", 101)]
    public async Task WrongAnswersFailTheHandshake(string answer, int status)
    {
        var (url, server) = await ServeOnceAsync(async (socket, _) => await socket.SendAsync(Encoding.ASCII.GetBytes(answer), Loopback.Timeout()));
        var error = await Assert.ThrowsAsync<WebSocketHandshakeException>(() => WebSocketClient.ConnectAsync(url));
        Assert.Equal(status, error.StatusCode);
        await server;
    }

    [Fact]
    public async Task AMaskedFrameFromTheServerGets1002()
    {
        var loop = new Loopback();
        // The loopback's "server" end plays our client here: it expects unmasked input.
        var channel = new WebSocketConnection(loop.Server, WebSocketRole.Client);
        Task<WebSocketCloseInfo> run = channel.RunAsync(new RecordingListener(), Loopback.Timeout());
        await loop.SendAsync(WireFrames.Client(WebSocketOpcode.Text, "masked"u8));
        byte[] wire = await loop.ReadAsync(8);
        var decoder = new FrameDecoder(WebSocketRole.Server);
        Assert.Equal(OperationStatus.Done, decoder.ReadFrame(wire, out FrameHeader header, out Span<byte> payload, out _));
        Assert.Equal(WebSocketOpcode.Close, header.Opcode);
        Assert.Equal(1002, WireFrames.CloseStatusOf(payload));
        await loop.FinAsync();
        Assert.Equal(ProtocolViolation.MaskedFrame, (await run.WaitAsync(Loopback.Timeout())).Violation);
    }
}
