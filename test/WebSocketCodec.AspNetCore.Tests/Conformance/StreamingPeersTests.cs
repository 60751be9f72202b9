using System.Net.Security;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>
/// Two peers whose applications each send without pause from a task of their own and consume what they receive, over
/// real sockets (Kestrel's endpoint and our client, HTTP/1.1 and HTTP/2): neither read loop may wait on its own side's
/// output, or both would stop reading and never start again. Each must receive everything the other sent, with the
/// keep-alive and a short slow-consumer timeout on, so a loop that stalled would be given up and fail the test.
/// </summary>
public sealed class StreamingPeersTests(ITestOutputHelper output)
{
    private const long Volume = 64L << 20;
    private static readonly WebSocketSessionOptions Session = new()
    {
        KeepAliveInterval = TimeSpan.FromSeconds(2),
        KeepAliveTimeout = TimeSpan.FromSeconds(2),
        SlowConsumerTimeout = TimeSpan.FromSeconds(5),
    };

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task BothPeersReceiveEverythingTheOtherSent(bool http2)
    {
        var serverSide = new TaskCompletionSource<(long Received, WebSocketCloseInfo Info)>(TaskCreationOptions.RunContinuationsAsynchronously);
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls: false).Build();
        app.MapWebSocket("/stream", async (context, channel) =>
        {
            try
            {
                serverSide.TrySetResult(await StreamAsync(channel, closeWhenDone: false, context.RequestAborted));
            }
            catch (Exception error)
            {
                serverSide.TrySetException(error);
            }
        }, o => { o.Session = Session; });
        await app.StartAsync();
        try
        {
            var url = new Uri($"ws://{SampleHosting.BaseUrl(app).Authority}/stream");
            using var invoker = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
            WebSocketConnection client = http2
                ? await WebSocketHttp2Client.ConnectAsync(invoker, url, new WebSocketClientOptions { Session = Session })
                : await WebSocketClient.ConnectAsync(url, new WebSocketClientOptions { Session = Session });
            using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
            var clock = System.Diagnostics.Stopwatch.StartNew();
            (long clientReceived, WebSocketCloseInfo clientInfo) = await StreamAsync(client, closeWhenDone: true, bound.Token).WaitAsync(bound.Token);
            (long serverReceived, WebSocketCloseInfo serverInfo) = await serverSide.Task.WaitAsync(bound.Token);
            output.WriteLine($"{(http2 ? "h2" : "h1")}: {serverReceived >> 20} MiB each way in {clock.ElapsedMilliseconds} ms");

            Assert.True(clientReceived >= Volume, $"the client received {clientReceived} bytes");
            Assert.True(serverReceived >= Volume, $"the server received {serverReceived} bytes");
            Assert.True(clientInfo.IsClean, $"client: {clientInfo}");
            Assert.True(serverInfo.IsClean, $"server: {serverInfo}");
        }
        finally
        {
            await app.StopAsync();
            await app.DisposeAsync();
        }
    }

    /// <summary>Sends <see cref="Volume"/> bytes from a task while the read loop counts what arrives; the client closes
    /// once both are done, the server waits for its Close.</summary>
    private static async Task<(long Received, WebSocketCloseInfo Info)> StreamAsync(WebSocketConnection channel, bool closeWhenDone, CancellationToken cancellationToken)
    {
        var counter = new CountingListener(Volume);
        Task<WebSocketCloseInfo> run = channel.RunAsync(counter, cancellationToken);
        byte[] chunk = new byte[16 * 1024];
        for (long sent = 0; sent < Volume; sent += chunk.Length)
        {
            await channel.Sender.SendAsync(WebSocketOpcode.Binary, chunk, cancellationToken: cancellationToken);
        }

        await Task.WhenAny(counter.ReceivedAll, run);
        if (closeWhenDone)
        {
            await channel.CloseAsync(cancellationToken: cancellationToken);
        }

        WebSocketCloseInfo info = await run;
        return (counter.Received, info);
    }

    private sealed class CountingListener(long expected) : IWebSocketFrameListener
    {
        private readonly TaskCompletionSource _all = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public long Received { get; private set; }

        public Task ReceivedAll => _all.Task;

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Received += payload.Length;
            if (Received >= expected)
            {
                _all.TrySetResult();
            }
        }
    }
}
