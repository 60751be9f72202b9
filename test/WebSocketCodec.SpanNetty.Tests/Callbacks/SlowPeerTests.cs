using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using DotNetty.Transport.Bootstrapping;
using DotNetty.Transport.Channels;
using DotNetty.Transport.Channels.Sockets;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.SpanNettyEchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.SpanNetty.Tests.Callbacks;

/// <summary>
/// Slow and stalled peers over real sockets on the SpanNetty handlers: the outbound water marks drive the channel's
/// writability, <c>SendAsync</c> waits above the high mark and <c>TrySend</c> refuses, a slow consumer gets 1008, the
/// keep-alive gives up a peer that stopped reading, and two peers streaming to each other never stop each other
/// (each checks every byte of the other's stream).
/// </summary>
public sealed class SlowPeerTests(ITestOutputHelper output) : LeakCheckedTests
{
    private static readonly byte[] Chunk = new byte[16 * 1024];

    [Fact]
    public async Task TwoPeersStreamingToEachOtherBothReceiveEverything()
    {
        const long Volume = 64L << 20;
        var session = new WebSocketSessionOptions
        {
            KeepAliveInterval = TimeSpan.FromSeconds(2),
            KeepAliveTimeout = TimeSpan.FromSeconds(2),
            SlowConsumerTimeout = TimeSpan.FromSeconds(5),
        };
        var serverPeer = new TaskCompletionSource<StreamingPeer>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using CallbacksServer server = await CallbacksServer.StartAsync(sender =>
        {
            var peer = new StreamingPeer(sender, Volume);
            serverPeer.TrySetResult(peer);
            return peer;
        }, session);

        IChannel? channel = null;
        try
        {
            StreamingPeer? clientPeer = null;
            var upgrade = new WebSocketClientUpgradeHandler(server.Url, sender => clientPeer = new StreamingPeer(sender, Volume), new WebSocketClientOptions { Session = session });
            channel = await new Bootstrap().Group(CallbacksServer.Loops).Channel<TcpSocketChannel>()
                .Option(ChannelOption.SoRcvbuf, CallbacksServer.SocketBuffer)
                .Handler(new ActionChannelInitializer<IChannel>(c => c.Pipeline.AddLast("upgrade", upgrade)))
                .ConnectAsync(server.EndPoint);
            WebSocketChannelHandler client = await upgrade.Completion.WaitAsync(TimeSpan.FromSeconds(20));
            StreamingPeer serverSide = await serverPeer.Task.WaitAsync(TimeSpan.FromSeconds(20));
            var clock = Stopwatch.StartNew();
            using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            await Task.WhenAll(clientPeer!.RunAsync(), serverSide.RunAsync()).WaitAsync(bound.Token);
            output.WriteLine($"{Volume >> 20} MiB each way in {clock.ElapsedMilliseconds} ms");

            WebSocketCloseInfo clientInfo = await client.Sender.CloseAsync().WaitAsync(bound.Token);
            WebSocketCloseInfo serverInfo = await serverSide.Ended.WaitAsync(bound.Token);
            clientPeer.Check.AssertExactly(Volume, "the client");
            serverSide.Check.AssertExactly(Volume, "the server");
            Assert.True(clientInfo.IsClean, clientInfo.ToString());
            Assert.True(serverInfo.IsClean, serverInfo.ToString());
        }
        finally
        {
            if (channel is not null)
            {
                await channel.CloseAsync();
            }
        }
    }

    [Fact]
    public async Task SendAsyncWaitsAndTrySendRefusesAboveTheHighWaterMarkThenEverythingArrives()
    {
        var pushed = new TaskCompletionSource<PushingPeer>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using CallbacksServer server = await StartPushingAsync(new WebSocketSessionOptions { SlowConsumerTimeout = TimeSpan.Zero }, pushed);
        using Socket socket = await UpgradeAsync(server.EndPoint);
        PushingPeer peer = await pushed.Task.WaitAsync(TimeSpan.FromSeconds(20));

        // The peer reads nothing: sends go out until the socket buffers and then the channel's high water mark fill;
        // then TrySend refuses (and queues nothing).
        long sent = 0;
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        while (sent < 256L << 20 && !bound.IsCancellationRequested)
        {
            if (peer.Sender.TrySend(WebSocketOpcode.Binary, Chunk))
            {
                sent += Chunk.Length;
            }
            else if (!peer.Sender.IsWritable)
            {
                break;
            }
            else
            {
                await Task.Yield(); // taken frames still on their way to the channel
            }
        }

        Assert.False(peer.Sender.IsWritable, $"still writable after {sent >> 20} MiB");
        Task waiting = peer.Sender.SendAsync(WebSocketOpcode.Binary, Chunk).AsTask();
        Assert.False(peer.Sender.TrySend(WebSocketOpcode.Binary, Chunk));
        Assert.False(waiting.IsCompleted, "SendAsync did not wait above the high water mark");

        // Now the peer reads: the waiting send goes out, and every frame sent arrives (the refused one never).
        Task<long> reading = ReadFramesAsync(socket, sent / Chunk.Length + 1, bound.Token);
        await waiting.WaitAsync(bound.Token);
        long payload = await reading;
        Assert.Equal(sent + Chunk.Length, payload);
        lock (peer.Writability)
        {
            Assert.Equal([false, true], peer.Writability.Take(2));
        }

        output.WriteLine($"unwritable after {sent >> 10} KiB sent to a peer that did not read");
    }

    [Fact]
    public async Task ASlowConsumerGets1008AndIsClosed()
    {
        var pushed = new TaskCompletionSource<PushingPeer>(TaskCreationOptions.RunContinuationsAsynchronously);
        var session = new WebSocketSessionOptions { SlowConsumerTimeout = TimeSpan.FromMilliseconds(500), CloseTimeout = TimeSpan.FromMilliseconds(500) };
        await using CallbacksServer server = await StartPushingAsync(session, pushed);
        using Socket socket = await UpgradeAsync(server.EndPoint);
        PushingPeer peer = await pushed.Task.WaitAsync(TimeSpan.FromSeconds(20));
        _ = peer.PushUntilClosedAsync();

        WebSocketCloseInfo info = await peer.Ended.WaitAsync(TimeSpan.FromSeconds(20));
        Assert.Equal((CloseStatus)1008, info.SentStatus);
        // The peer never answered (the channel was closed at the close timeout); the cause is what is reported.
        Assert.Equal(WebSocketEndReason.SlowConsumer, info.EndReason);
        Assert.Null(info.ReceivedStatus);
    }

    [Fact]
    public async Task TheKeepAliveGivesUpAPeerThatNeverReadsAndOthersAreStillServed()
    {
        var ended = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        await using CallbacksServer server = await CallbacksServer.StartAsync(
            sender => EchoCallbacks.Messages(sender, info => ended.TrySetResult(info)),
            new WebSocketSessionOptions { KeepAliveInterval = TimeSpan.FromSeconds(1), KeepAliveTimeout = TimeSpan.FromSeconds(1) });
        using Socket socket = await UpgradeAsync(server.EndPoint);

        // Echo requests, 64 KiB each, until the server stops taking them (its echoes pile up unread) or gives up.
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[64 * 1024]);
        var clock = Stopwatch.StartNew();
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(15));
        Task<WebSocketCloseInfo> end = ended.Task;
        while (!end.IsCompleted && !bound.IsCancellationRequested)
        {
            using var stall = CancellationTokenSource.CreateLinkedTokenSource(bound.Token);
            stall.CancelAfter(TimeSpan.FromMilliseconds(200));
            try
            {
                await socket.SendAsync(frame, SocketFlags.None, stall.Token);
            }
            catch (OperationCanceledException)
            {
                await Task.WhenAny(end, Task.Delay(100, CancellationToken.None)); // pacing: the server stopped reading; push again a little later
            }
            catch (SocketException)
            {
                break; // torn down
            }
        }

        WebSocketCloseInfo info = await end.WaitAsync(bound.Token);
        output.WriteLine($"given up after {clock.ElapsedMilliseconds} ms");
        Assert.Equal(WebSocketEndReason.KeepAliveTimeout, info.EndReason);

        // Meanwhile and afterwards the server serves others.
        await using RawWebSocket other = await RawWebSocket.OpenAsync(server.Url);
        await other.AssertEchoAsync("still served");
    }

    /// <summary>A server whose websocket is a <see cref="PushingPeer"/>, handed to <paramref name="pushed"/>.</summary>
    private static Task<CallbacksServer> StartPushingAsync(WebSocketSessionOptions session, TaskCompletionSource<PushingPeer> pushed) =>
        CallbacksServer.StartAsync(sender =>
        {
            var peer = new PushingPeer(sender);
            pushed.TrySetResult(peer);
            return peer;
        }, session);

    private static async Task<Socket> UpgradeAsync(IPEndPoint endPoint)
    {
        var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        await socket.ConnectAsync(endPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/ws")), SocketFlags.None);
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(socket));
        return socket;
    }

    /// <summary>Reads <paramref name="frames"/> unmasked binary frames off the socket and sums their payloads.</summary>
    private static async Task<long> ReadFramesAsync(Socket socket, long frames, CancellationToken cancellationToken)
    {
        var decoder = new FrameDecoder(WebSocketRole.Client);
        byte[] buffer = new byte[256 * 1024];
        int buffered = 0;
        long payload = 0;
        while (frames > 0)
        {
            int read = await socket.ReceiveAsync(buffer.AsMemory(buffered), SocketFlags.None, cancellationToken);
            Assert.True(read > 0, "the server closed the connection");
            buffered += read;
            int offset = 0;
            while (frames > 0 && decoder.ReadFrame(buffer.AsSpan(offset, buffered - offset), out FrameHeader header, out Span<byte> frame, out _) == System.Buffers.OperationStatus.Done)
            {
                Assert.Equal(WebSocketOpcode.Binary, header.Opcode);
                payload += frame.Length;
                offset += (int)header.FrameLength;
                frames--;
            }

            buffer.AsSpan(offset, buffered - offset).CopyTo(buffer);
            buffered -= offset;
        }

        return payload;
    }

    /// <summary>Checks what it receives against <see cref="StreamPattern"/> (never answers from the callbacks) and sends
    /// the pattern from a task of its own.</summary>
    private sealed class StreamingPeer(WebSocketFrameSender sender, long volume) : IWebSocketFrameListener
    {
        private readonly TaskCompletionSource _receivedAll = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private readonly TaskCompletionSource<WebSocketCloseInfo> _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);

        /// <summary>What arrived; read it once the websocket ended.</summary>
        public StreamPatternCheck Check { get; } = new();

        public Task<WebSocketCloseInfo> Ended => _ended.Task;

        public async Task RunAsync()
        {
            byte[] chunk = new byte[Chunk.Length];
            for (long sent = 0; sent < volume; sent += chunk.Length)
            {
                StreamPattern.Fill(chunk, sent); // the previous send completed: its bytes were taken
                await sender.SendAsync(WebSocketOpcode.Binary, chunk);
            }

            await _receivedAll.Task;
        }

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Check.Accept(payload);
            if (Check.Received >= volume)
            {
                _receivedAll.TrySetResult();
            }
        }

        public void OnClose(WebSocketCloseInfo info)
        {
            _receivedAll.TrySetException(new InvalidOperationException($"ended early: {info}"));
            _ended.TrySetResult(info);
        }
    }

    /// <summary>Sends from other threads; records writability changes and the end.</summary>
    private sealed class PushingPeer(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        private readonly TaskCompletionSource<WebSocketCloseInfo> _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public WebSocketFrameSender Sender => sender;

        public List<bool> Writability { get; } = [];

        public Task<WebSocketCloseInfo> Ended => _ended.Task;

        public async Task PushUntilClosedAsync()
        {
            try
            {
                while (!_ended.Task.IsCompleted)
                {
                    await sender.SendAsync(WebSocketOpcode.Binary, Chunk);
                }
            }
            catch (InvalidOperationException)
            {
                // closing or closed
            }
        }

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }

        public void OnWritabilityChanged(bool writable)
        {
            lock (Writability)
            {
                Writability.Add(writable);
            }
        }

        public void OnClose(WebSocketCloseInfo info) => _ended.TrySetResult(info);
    }
}
