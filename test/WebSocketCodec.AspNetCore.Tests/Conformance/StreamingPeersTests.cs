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
/// keep-alive and a short slow-consumer timeout on, so a loop that stalled would be given up and fail the test. The
/// streams are <see cref="StreamPattern"/>: each side checks every byte it received, and that it got exactly as many as
/// were sent.
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
        var serverSide = new TaskCompletionSource<(StreamPatternCheck Received, WebSocketCloseInfo Info)>(TaskCreationOptions.RunContinuationsAsynchronously);
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
            (StreamPatternCheck clientReceived, WebSocketCloseInfo clientInfo) = await StreamAsync(client, closeWhenDone: true, bound.Token).WaitAsync(bound.Token);
            (StreamPatternCheck serverReceived, WebSocketCloseInfo serverInfo) = await serverSide.Task.WaitAsync(bound.Token);
            output.WriteLine($"{(http2 ? "h2" : "h1")}: {serverReceived.Received >> 20} MiB each way in {clock.ElapsedMilliseconds} ms");

            clientReceived.AssertExactly(Volume, "the client");
            serverReceived.AssertExactly(Volume, "the server");
            Assert.True(clientInfo.IsClean, $"client: {clientInfo}");
            Assert.True(serverInfo.IsClean, $"server: {serverInfo}");
        }
        finally
        {
            await app.StopAsync();
            await app.DisposeAsync();
        }
    }

    /// <summary>Sends <see cref="Volume"/> bytes of the pattern from a task while the read loop checks what arrives; the
    /// client closes once both are done, the server waits for its Close.</summary>
    private static async Task<(StreamPatternCheck Received, WebSocketCloseInfo Info)> StreamAsync(WebSocketConnection channel, bool closeWhenDone, CancellationToken cancellationToken)
    {
        var counter = new CheckingListener(Volume);
        Task<WebSocketCloseInfo> run = channel.RunAsync(counter, cancellationToken);
        byte[] chunk = new byte[16 * 1024];
        for (long sent = 0; sent < Volume; sent += chunk.Length)
        {
            StreamPattern.Fill(chunk, sent); // the send has taken the previous chunk's bytes once it completed
            await channel.Sender.SendAsync(WebSocketOpcode.Binary, chunk, cancellationToken: cancellationToken);
        }

        await Task.WhenAny(counter.ReceivedAll, run);
        if (closeWhenDone)
        {
            await channel.CloseAsync(cancellationToken: cancellationToken);
        }

        WebSocketCloseInfo info = await run;
        return (counter.Check, info);
    }

    private sealed class CheckingListener(long expected) : IWebSocketFrameListener
    {
        private readonly TaskCompletionSource _all = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public StreamPatternCheck Check { get; } = new();

        public Task ReceivedAll => _all.Task;

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            Check.Accept(payload);
            if (Check.Received >= expected)
            {
                _all.TrySetResult();
            }
        }
    }
}
