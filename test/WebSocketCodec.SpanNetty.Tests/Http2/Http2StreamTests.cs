using System.Net.WebSockets;
using System.Text;
using DotNetty.Transport.Channels;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using WebSocketCodec.SpanNetty.Tests.Infrastructure;
using WebSocketCodec.Testing;
using static WebSocketCodec.SpanNetty.Tests.Http2.H2Clients;

namespace WebSocketCodec.SpanNetty.Tests.Http2;

/// <summary>Many websockets on one HTTP/2 connection: they echo side by side, one's abort (RST_STREAM) ends it alone,
/// one whose server application stops reading stalls only its own stream, and the server's shutdown closes them with
/// 1001.</summary>
public sealed class Http2StreamTests : LeakCheckedTests
{
    [Fact]
    public async Task AHundredWebSocketsEchoOnOneConnectionAndOneAbortEndsItAlone()
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        using HttpMessageInvoker invoker = Invoker();
        var clients = new List<ClientWebSocket>();
        try
        {
            for (int i = 0; i < 100; i++)
            {
                clients.Add(await ConnectAsync(invoker, server.Url()));
            }

            await Task.WhenAll(clients.Select((client, i) => EchoAsync(client, $"hello {i}")));
            Assert.Single(server.Connections);

            clients[7].Abort(); // RST_STREAM
            WebSocketCloseInfo aborted = await Http2EchoTests.Eventually(server);
            Assert.Equal(CloseStatus.AbnormalClosure, aborted.Status);
            await Task.WhenAll(clients.Where((_, i) => i != 7).Select((client, i) => EchoAsync(client, $"again {i}")));
            Assert.Single(server.Ended);

            await Task.WhenAll(clients.Where((_, i) => i != 7).Select(client => client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout())));
            await Http2EchoTests.Eventually(server, 100);
            Assert.Equal(99, server.Ended.Count(info => info.IsClean));
        }
        finally
        {
            clients.ForEach(client => client.Dispose());
        }
    }

    [Fact]
    public async Task AWebSocketWhoseApplicationStopsReadingStallsOnlyItsOwnStream()
    {
        var stall = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var stalling = new Stalling(stall.Task);
        int first = 0;
        await using Http2Server server = await Http2Server.StartAsync((sender, ended) =>
            Interlocked.Exchange(ref first, 1) == 0 ? stalling : EchoCallbacks.Frames(sender, ended));
        using HttpMessageInvoker invoker = Invoker();
        using ClientWebSocket stalled = await ConnectAsync(invoker, server.Url());
        var others = new List<ClientWebSocket>();
        try
        {
            for (int i = 0; i < 99; i++)
            {
                others.Add(await ConnectAsync(invoker, server.Url()));
            }

            // The stalled websocket's application reads nothing: its sender fills the stream's window (128 KiB) and
            // waits, while the other 99 keep echoing on the same connection.
            byte[] chunk = Payload(64 * 1024);
            var sends = Task.Run(async () =>
            {
                for (int i = 0; i < 64; i++)
                {
                    await stalled.SendAsync(chunk, WebSocketMessageType.Binary, true, CancellationToken.None);
                }
            });
            // The application holds its websocket from the end of its first read on: nothing more is delivered to it.
            await Eventually.True(() => stalling.Holds == 1);
            for (int round = 0; round < 3; round++)
            {
                await Task.WhenAll(others.Select((client, i) => EchoAsync(client, $"round {round} {i}", 32 * 1024)));
            }

            // Still held once after the others' echoes: one read reached the application, at most the stream's window.
            Assert.Equal(1, stalling.Holds);
            Assert.InRange(stalling.Received, 0, 128 * 1024);
            Assert.False(sends.IsCompleted, "4 MiB went into a stream whose application reads nothing");
            stall.SetResult(); // the application reads again: the stream's window reopens
            await sends.WaitAsync(TimeSpan.FromSeconds(30));
            await stalled.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
            await Task.WhenAll(others.Select(client => client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout())));
        }
        finally
        {
            stall.TrySetResult();
            others.ForEach(client => client.Dispose());
        }
    }

    [Fact]
    public async Task TheServersShutdownClosesEveryWebSocketWith1001()
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        using HttpMessageInvoker invoker = Invoker();
        using ClientWebSocket a = await ConnectAsync(invoker, server.Url());
        using ClientWebSocket b = await ConnectAsync(invoker, server.Url());
        await EchoAsync(a, "a");
        Assert.True(server.Connections.TryPeek(out IChannel? connection));
        Task closed = Http2WebSocketServer.ShutdownAsync(connection!, TimeSpan.FromSeconds(10));
        foreach (ClientWebSocket client in new[] { a, b })
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(new byte[16], Timeout());
            Assert.Equal(WebSocketMessageType.Close, result.MessageType);
            Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, client.CloseStatus);
            await client.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        }

        await closed.WaitAsync(TimeSpan.FromSeconds(20));
        await Http2EchoTests.Eventually(server, 2);
        Assert.All(server.Ended, info => Assert.Equal(CloseStatus.GoingAway, info.SentStatus));
    }

    [Fact]
    public async Task OurPipelinesHttp2ClientEchoesOnStreamsOfOneConnection()
    {
        await using Http2Server server = await Http2Server.StartAsync(EchoCallbacks.Frames);
        using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        var sockets = new List<MessageWebSocket>();
        try
        {
            for (int i = 0; i < 10; i++)
            {
                sockets.Add(await WebSocketHttp2Client.ConnectMessagesAsync(invoker, server.Url(), cancellationToken: Timeout()));
            }

            for (int round = 0; round < 20; round++)
            {
                foreach (MessageWebSocket socket in sockets)
                {
                    await socket.SendTextAsync($"message {round}", Timeout());
                    using WebSocketMessage? reply = await socket.ReceiveAsync(Timeout());
                    Assert.Equal($"message {round}", Encoding.UTF8.GetString(reply!.Payload.Span));
                }
            }

            foreach (MessageWebSocket socket in sockets)
            {
                await socket.CloseAsync(cancellationToken: Timeout());
            }

            Assert.Single(server.Connections);
            await Http2EchoTests.Eventually(server, 10);
            Assert.All(server.Ended, info => Assert.True(info.IsClean, info.ToString()));
        }
        finally
        {
            foreach (MessageWebSocket socket in sockets)
            {
                await socket.DisposeAsync();
            }
        }
    }

    [Fact]
    public async Task PermessageDeflateIsNegotiatedAndEchoes()
    {
        var pool = new CountingPool();
        await using Http2Server server = await Http2Server.StartAsync(
            EchoCallbacks.Messages,
            new WebSocketAcceptOptions { Deflate = new PerMessageDeflateOptions(), Session = new WebSocketSessionOptions { Pool = pool } });
        using HttpMessageInvoker invoker = Invoker();
        using ClientWebSocket client = await ConnectAsync(invoker, server.Url(), options =>
            options.DangerousDeflateOptions = new WebSocketDeflateOptions());
        foreach (int size in new[] { 0, 10, 1000, 100_000 })
        {
            byte[] text = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("compressible ", size / 13 + 1)).Substring(0, size));
            await client.SendAsync(text, WebSocketMessageType.Text, true, Timeout());
            var (_, echoed) = await ReceiveAsync(client);
            Assert.Equal(text, echoed);
        }

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, null, Timeout());
        WebSocketCloseInfo info = await Http2EchoTests.Eventually(server);
        Assert.True(info.IsClean, info.ToString());
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.BadReturns);
    }

    private static async Task EchoAsync(ClientWebSocket client, string text, int pad = 0)
    {
        byte[] payload = Encoding.UTF8.GetBytes(text + new string('x', pad));
        await client.SendAsync(payload, WebSocketMessageType.Text, true, Timeout(60));
        var (_, echoed) = await ReceiveAsync(client);
        Assert.Equal(payload, echoed);
    }

    /// <summary>Reads one frame, then its read-complete work waits until released: the application stops reading.</summary>
    /// <summary>An application that stops reading after its first read until <paramref name="release"/> completes:
    /// counts the payload bytes delivered and the reads it held.</summary>
    private sealed class Stalling(Task release) : IWebSocketFrameListener
    {
        private long _received;
        private int _holds;

        public long Received => Interlocked.Read(ref _received);

        public int Holds => Volatile.Read(ref _holds);

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload) => Interlocked.Add(ref _received, payload.Length);

        public ValueTask OnReadCompleteAsync(CancellationToken cancellationToken)
        {
            if (!release.IsCompleted)
            {
                Interlocked.Increment(ref _holds);
            }

            return new(release);
        }
    }
}
