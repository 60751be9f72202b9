using System.Net.WebSockets;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>
/// Our Close (a server's shutdown 1001, an idle timeout's 1001) racing the application's sends from another task and
/// the read loop's echoes, while the peer's data keeps arriving, over real sockets (HTTP/1.1 and HTTP/2): exactly one
/// Close leaves, nothing after it, the peer's answer behind more data ends the exchange, and the server's websocket
/// ends clean.
/// </summary>
public sealed class CloseRaceTests
{
    [Theory]
    [InlineData("shutdown", false)]
    [InlineData("shutdown", true)]
    [InlineData("idle", false)]
    [InlineData("idle", true)]
    public async Task OneCloseLeavesAndTheEndIsClean(string cause, bool http2)
    {
        var serverEnd = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
        var streaming = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls: false).Build();
        var session = new WebSocketSessionOptions
        {
            IdleTimeout = cause == "idle" ? TimeSpan.FromMilliseconds(300) : TimeSpan.Zero,
            // The peer below writes without pause until it has read everything the server sent before its Close; on a
            // loaded machine that is megabytes later, past the drain's default bound (1 MiB after a message), which
            // then ends the websocket as a close timeout (CI saw it). This test is about the race, not that bound (the
            // session's tests check it), so both bounds are wide here.
            MaxDrainBytes = 256L << 20,
            CloseTimeout = TimeSpan.FromSeconds(15),
        };
        app.MapWebSocket("/race", async (context, channel) =>
        {
            // The loop echoes every message (sends that stop at our Close: Send returns false); a task sends without
            // pause (SendAsync refuses once the Close is sent).
            Task<WebSocketCloseInfo> run = channel.RunAsync(sender => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, _, payload) => s.Send(WebSocketOpcode.Binary, payload)));
            byte[] chunk = new byte[512];
            while (!run.IsCompleted)
            {
                try
                {
                    await channel.Sender.SendAsync(WebSocketOpcode.Binary, chunk);
                    streaming.TrySetResult();
                }
                catch (InvalidOperationException)
                {
                    break; // our Close was sent
                }
            }

            serverEnd.TrySetResult(await run);
        }, o => { o.Session = session; });
        await app.StartAsync();
        Task? stopping = null;
        try
        {
            Uri baseUrl = SampleHosting.BaseUrl(app);
            await using RawWebSocket socket = http2
                ? await RawWebSocket.OpenHttp2Async(baseUrl, "/race")
                : await RawWebSocket.OpenAsync(new Uri($"ws://{baseUrl.Authority}/race"));
            using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(20));

            // The peer sends data (echoed back) until the server's Close arrives; for the idle timeout it pauses first.
            using var stopSending = new CancellationTokenSource();
            Task sending = SendUntilStoppedAsync(socket, pauseAfter: cause == "idle" ? 50 : int.MaxValue, stopSending.Token);
            await streaming.Task.WaitAsync(bound.Token);
            if (cause == "shutdown")
            {
                stopping = app.StopAsync(bound.Token);
            }

            var frames = new List<(WebSocketOpcode Opcode, bool Fin, byte[] Payload)>();
            (WebSocketOpcode Opcode, bool Fin, byte[] Payload)? frame;
            while ((frame = await socket.ReadFrameAsync().WaitAsync(bound.Token)) is { Opcode: not WebSocketOpcode.Close })
            {
                frames.Add(frame.Value);
            }

            Assert.NotNull(frame);
            Assert.Equal(1001, WireFrames.CloseStatusOf(frame.Value.Payload)); // going away
            await stopSending.CancelAsync();
            await sending;

            // More data behind our answer's heels, then the answer; after the server's Close nothing more may come.
            await socket.SendAsync([.. WireFrames.Client(WebSocketOpcode.Binary, new byte[100]), .. WireFrames.ClientClose(1001)]);
            Assert.Null(await socket.ReadFrameAsync().WaitAsync(bound.Token));
            Assert.NotEmpty(frames); // the race was on: data flowed until the Close

            WebSocketCloseInfo info = await serverEnd.Task.WaitAsync(bound.Token);
            // A clean exchange; the idle timeout is reported as what started it.
            Assert.True(info is { ReceivedStatus: not null, SentStatus: not null, Violation: ProtocolViolation.None, Error: null }, info.ToString());
            Assert.Equal(cause == "idle" ? WebSocketEndReason.IdleTimeout : WebSocketEndReason.Closed, info.EndReason);
            Assert.Equal((CloseStatus)1001, info.SentStatus);
            Assert.Equal((CloseStatus)1001, info.ReceivedStatus);
        }
        finally
        {
            await (stopping ?? app.StopAsync());
            await app.DisposeAsync();
        }
    }

    private static async Task SendUntilStoppedAsync(RawWebSocket socket, int pauseAfter, CancellationToken stop)
    {
        byte[] frame = WireFrames.Client(WebSocketOpcode.Binary, new byte[256]);
        for (int sent = 0; !stop.IsCancellationRequested; sent++)
        {
            if (sent >= pauseAfter)
            {
                var stopped = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                using (stop.Register(() => stopped.TrySetResult()))
                {
                    await stopped.Task; // quiet until the test says stop
                }

                return;
            }

            try
            {
                await socket.SendAsync(frame);
            }
            catch (Exception error) when (error is IOException or OperationCanceledException)
            {
                return;
            }
        }
    }
}
