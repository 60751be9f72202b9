using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using WebSocketCodec.Pipelines;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Client;

/// <summary>
/// A thousand losses in a row through a relay that cuts at a random byte (mid-handshake, mid-frame) or goes silent
/// (found by a short keep-alive): the client comes back every time, every message queued while it was down arrives
/// once and in order after the connection's hook message, nothing arrives twice, and disposal leaves no socket or timer.
/// </summary>
public sealed class ReconnectCycleTests(ITestOutputHelper output)
{
    private const int Cycles = 1000;

    [Fact]
    public async Task AThousandCutsLoseNoQueuedMessageAndLeaveNothingBehind()
    {
        await using MessageLogServer server = await MessageLogServer.StartAsync();
        await using FaultRelay relay = FaultRelay.Start(server.Port);
        var time = new CountingTimeProvider();
        var outcomes = new ConcurrentDictionary<int, WebSocketSendOutcome>();
        var reconnectTimes = new ConcurrentQueue<double>();
        long lostAt = 0;
        var options = new ReconnectingWebSocketOptions
        {
            Client = new WebSocketClientOptions
            {
                HandshakeTimeout = TimeSpan.FromSeconds(5),
                Session = WebSocketSessionOptions.Default with
                {
                    KeepAliveInterval = TimeSpan.FromMilliseconds(200),
                    KeepAliveTimeout = TimeSpan.FromMilliseconds(300),
                    CloseTimeout = TimeSpan.FromMilliseconds(500),
                    TimeProvider = time,
                },
            },
            Backoff = new ReconnectBackoff { InitialDelay = TimeSpan.FromMilliseconds(4), MaxDelay = TimeSpan.FromMilliseconds(50), StableAfter = TimeSpan.Zero },
            OnConnected = (webSocket, cancellation) => webSocket.SendTextAsync("hello", cancellation),
            MaxQueuedMessages = 1_000_000,
            MaxQueuedBytes = 64L << 20,
        };
        var client = new ReconnectingWebSocket(new Uri($"ws://127.0.0.1:{relay.Port}/log"), options);
        client.Disconnected += (_, _) => Volatile.Write(ref lostAt, Stopwatch.GetTimestamp());
        client.Connected += (_, _) =>
        {
            long lost = Volatile.Read(ref lostAt);
            if (lost != 0)
            {
                reconnectTimes.Enqueue(Stopwatch.GetElapsedTime(lost).TotalMilliseconds);
            }
        };
        await client.StartAsync().WaitAsync(TimeSpan.FromSeconds(10));

        using var stopSending = new CancellationTokenSource();
        int sent = 0;
        Task sender = Task.Run(async () =>
        {
            while (!stopSending.IsCancellationRequested)
            {
                int seq = sent;
                outcomes[seq] = await client.SendTextAsync(seq.ToString(CultureInfo.InvariantCulture));
                sent = seq + 1;
                await Task.Delay(1);
            }
        });

        var random = new Random(42);
        int silent = 0, midHandshake = 0, midFrame = 0;
        for (int cycle = 0; cycle < Cycles; cycle++)
        {
            await Eventually.True(() => client.IsConnected && client.Connections > cycle, TimeSpan.FromSeconds(15), $"connection {cycle + 1}");
            await UntilQueuedArrivedAsync(server, outcomes, sender);
            int mode = random.Next(100);
            if (mode < 5)
            {
                silent++;
                relay.GoSilent(); // the keep-alive finds it
            }
            else if (mode < 50)
            {
                midHandshake++;
                bool request = random.Next(2) == 0;
                relay.CutNextAfter(request ? random.Next(1, 120) : -1, request ? -1 : random.Next(1, 100));
                relay.CutAfter(random.Next(0, 64));
            }
            else
            {
                midFrame++;
                relay.CutAfter(random.Next(1, 200));
            }
        }

        await Eventually.True(() => client.IsConnected && client.Connections > Cycles, TimeSpan.FromSeconds(15), "the connection after the last cut");
        stopSending.Cancel();
        await sender.WaitAsync(TimeSpan.FromSeconds(10));
        await UntilQueuedArrivedAsync(server, outcomes, sender);
        Assert.Equal(WebSocketCodec.WebSocketEndReason.Closed, (await client.CloseAsync().WaitAsync(TimeSpan.FromSeconds(10)))!.EndReason);
        await client.DisposeAsync();

        // What the server got: in order, nothing twice, every queued message once, after its websocket's hello.
        var seen = new HashSet<int>();
        int last = -1;
        var hello = new HashSet<int>();
        foreach ((int webSocket, string text) in server.Log)
        {
            if (text == "hello")
            {
                Assert.True(hello.Add(webSocket), $"websocket {webSocket} said hello twice");
                continue;
            }

            int seq = int.Parse(text, CultureInfo.InvariantCulture);
            Assert.True(hello.Contains(webSocket), $"{seq} came on websocket {webSocket} before its hello");
            Assert.True(seen.Add(seq), $"{seq} arrived twice");
            Assert.True(seq > last, $"{seq} arrived after {last}");
            last = seq;
        }

        int[] queued = [.. outcomes.Where(o => o.Value == WebSocketSendOutcome.Queued).Select(o => o.Key)];
        int[] lostQueued = [.. queued.Where(seq => !seen.Contains(seq))];
        Assert.True(lostQueued.Length == 0, $"{lostQueued.Length} of {queued.Length} queued messages were lost: {string.Join(", ", lostQueued.Take(10))}");
        int sentDirect = outcomes.Count(o => o.Value == WebSocketSendOutcome.Sent);
        int lostDirect = outcomes.Count(o => o.Value == WebSocketSendOutcome.Sent && !seen.Contains(o.Key));
        Assert.True(client.Connections >= Cycles + 1, $"{client.Connections} connections");

        // Nothing left behind: the relay's connections (the client's sockets) closed, the server's websockets ended, no timer alive.
        await Eventually.True(() => relay.Open == 0, TimeSpan.FromSeconds(10), "the relay's connections to close");
        await Eventually.True(() => server.Open == 0, TimeSpan.FromSeconds(10), "the server's websockets to end");
        Assert.Equal(0, time.Live);

        double[] times = [.. reconnectTimes.Order()];
        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{client.Connections} connections ({silent} silent, {midHandshake} mid-handshake, {midFrame} mid-frame cuts); relay accepted {relay.Accepted}; " +
            $"{queued.Length} queued, 0 lost, 0 twice; {sentDirect} written directly, {lostDirect} of them lost with their transport (at most once); " +
            $"reconnect after a detected cut p50 {Percentile(times, 0.5):F1} ms, p99 {Percentile(times, 0.99):F1} ms, max {times[^1]:F1} ms; {time.Created} timers made, {time.Live} alive"));
    }

    /// <summary>Waits until every message queued so far arrived: only then may the relay cut again (a queued message
    /// handed to a websocket that is then cut is lost by design: at most once).</summary>
    private static async Task UntilQueuedArrivedAsync(MessageLogServer server, ConcurrentDictionary<int, WebSocketSendOutcome> outcomes, Task sender)
    {
        int[] queued = [.. outcomes.Where(o => o.Value == WebSocketSendOutcome.Queued).Select(o => o.Key)];
        if (queued.Length == 0)
        {
            return;
        }

        int highest = queued.Max();
        string wanted = highest.ToString(CultureInfo.InvariantCulture);
        await Eventually.True(() => sender.IsFaulted || server.Received(wanted), TimeSpan.FromSeconds(15), $"queued message {highest} to arrive");
        if (sender.IsFaulted)
        {
            await sender;
        }
    }

    private static double Percentile(double[] sorted, double p) => sorted.Length == 0 ? double.NaN : sorted[Math.Min(sorted.Length - 1, (int)(p * sorted.Length))];
}
