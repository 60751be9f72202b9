using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.Json;
using HdrHistogram;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// The client process: opens its websockets (<paramref name="concurrency"/> handshakes at a time), prints
/// <paramref name="stalled"/> websockets that never read (<see cref="StalledWebSocket"/>: not counted in deliveries), prints
/// <c>stalled K</c> and <c>connected N</c> (the reading ones), then prints <c>d SEQUENCE NANOSECONDS</c> each time every websocket has a broadcast (the delivery
/// time: the last receipt minus the server's stamp). On a <c>report</c> line on stdin it prints its
/// <see cref="ClientReport"/> as JSON; at the end of stdin it closes every websocket and exits. In the burst mode
/// (<paramref name="burstPayload"/> above 0) a <c>burst K T</c> line makes every websocket publish K messages at once
/// (<see cref="ReceivingWebSocket.SendBurst"/>); the client waits until every websocket has every message or has ended,
/// at most T ms, and prints <c>burst </c> and its <see cref="BurstReport"/> as JSON.
/// </summary>
internal static class ClientMode
{
    public static async Task<int> RunAsync(int port, int webSockets, int broadcasts, int concurrency, int stalled = 0, int burstPayload = 0)
    {
        var output = new object();
        void Print(string line)
        {
            lock (output)
            {
                Console.Out.WriteLine(line);
                Console.Out.Flush();
            }
        }

        var deliveries = new Deliveries(webSockets, broadcasts, (sequence, nanoseconds) =>
            Print(string.Create(CultureInfo.InvariantCulture, $"d {sequence} {nanoseconds}")));
        BurstTally? burst = burstPayload > 0 ? new BurstTally(webSockets) : null;
        var server = new IPEndPoint(IPAddress.Loopback, port);
        var open = new ReceivingWebSocket?[webSockets];
        int failed = 0;
        string? firstFailure = null;
        using (var gate = new SemaphoreSlim(concurrency))
        {
            await Task.WhenAll(Enumerable.Range(0, webSockets).Select(async i =>
            {
                await gate.WaitAsync();
                try
                {
                    using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
                    open[i] = await ReceivingWebSocket.ConnectAsync(server, deliveries, timeout.Token, burst, i);
                }
                catch (Exception error)
                {
                    Interlocked.Increment(ref failed);
                    Interlocked.CompareExchange(ref firstFailure, "connect: " + error.GetType().Name + ": " + error.Message, null);
                }
                finally
                {
                    gate.Release();
                }
            }));
        }

        // After the reading ones, so they are filled and joined last, and their slow-consumer timeout starts late.
        var stalledOpen = new List<StalledWebSocket>();
        for (int i = 0; i < stalled; i++)
        {
            try
            {
                using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
                stalledOpen.Add(await StalledWebSocket.ConnectAsync(server, timeout.Token));
            }
            catch (Exception error)
            {
                failed++;
                firstFailure ??= "connect stalled: " + error.GetType().Name + ": " + error.Message;
            }
        }

        ReceivingWebSocket[] connected = [.. open.OfType<ReceivingWebSocket>()];
        Print($"stalled {stalledOpen.Count}");
        Print($"connected {connected.Length}");
        while (await Console.In.ReadLineAsync() is { } command)
        {
            if (burst is not null && command.StartsWith("burst ", StringComparison.Ordinal))
            {
                string[] parts = command.Split(' ');
                BurstReport result = await BurstAsync(
                    connected, burst, int.Parse(parts[1], CultureInfo.InvariantCulture), burstPayload, TimeSpan.FromMilliseconds(int.Parse(parts[2], CultureInfo.InvariantCulture)));
                Print("burst " + JsonSerializer.Serialize(result, Json));
            }
            else if (burst is not null && command.StartsWith("arrived ", StringComparison.Ordinal))
            {
                // The share of the last burst's receipts that had arrived by a time (the server's last relay).
                long at = long.Parse(command["arrived ".Length..], CultureInfo.InvariantCulture);
                Print(string.Create(CultureInfo.InvariantCulture, $"arrived {burst.ArrivedBy(at):R}"));
            }
            else if (command == "report")
            {
                string? ended = connected.Select(w => w.Failure).FirstOrDefault(f => f is not null);
                var report = new ClientReport
                {
                    Open = connected.Length,
                    Failed = failed + connected.Count(w => w.Failure is not null),
                    FirstFailure = firstFailure ?? ended,
                    Received = deliveries.Received,
                    Complete = deliveries.Complete,
                    MinPerWebSocket = connected.Length == 0 ? 0 : connected.Min(w => w.Received),
                    MaxPerWebSocket = connected.Length == 0 ? 0 : connected.Max(w => w.Received),
                    OutOfOrder = deliveries.OutOfOrder,
                    Unexpected = deliveries.Unexpected,
                };
                Print(JsonSerializer.Serialize(report, Json));
            }
        }

        foreach (ReceivingWebSocket webSocket in connected)
        {
            webSocket.Close();
        }

        foreach (StalledWebSocket webSocket in stalledOpen)
        {
            webSocket.Dispose();
        }

        return 0;
    }

    /// <summary>One burst: every websocket sends its messages (one write each, in index order, from this thread), then
    /// this waits until every one has all the senders' messages or has ended, at most <paramref name="bound"/>.</summary>
    private static async Task<BurstReport> BurstAsync(ReceivingWebSocket[] connected, BurstTally burst, int messages, int payloadLength, TimeSpan bound)
    {
        int senders = connected.Count(w => !w.Ended);
        foreach (ReceivingWebSocket webSocket in connected)
        {
            webSocket.BeginBurst();
        }

        (TimeSpan cpuAtStart, _) = Server.ProcessCpu.Now();
        long start = Stopwatch.GetTimestamp();
        burst.Begin(senders, messages, start);
        foreach (ReceivingWebSocket webSocket in connected)
        {
            if (!webSocket.Ended)
            {
                webSocket.SendBurst(messages, payloadLength);
            }
        }

        long sent = Stopwatch.GetTimestamp();
        long expected = burst.Expected;
        bool timedOut = false;
        while (!connected.All(w => w.BurstReceived >= expected || w.Ended))
        {
            if (Stopwatch.GetElapsedTime(start) > bound)
            {
                timedOut = true;
                break;
            }

            await Task.Delay(2);
        }

        long end = Stopwatch.GetTimestamp();
        (TimeSpan cpuAtEnd, _) = Server.ProcessCpu.Now();
        await Task.Delay(50); // receipts of messages beyond the expected (repeats) would show as out of order or unexpected
        ReceivingWebSocket[] complete = [.. connected.Where(w => w.BurstReceived >= expected && w.CompleteAt != 0)];
        double ToNs(long ticks) => ticks * (1e9 / Stopwatch.Frequency);
        long[] completeAt = [.. complete.Select(w => (long)ToNs(w.CompleteAt - start)).Order()];
        LongHistogram latency = burst.Latency();
        LongHistogram arrival = burst.Arrival();
        bool all = complete.Length == connected.Length;
        return new BurstReport
        {
            Messages = messages,
            Senders = senders,
            ExpectedPerWebSocket = expected,
            Complete = complete.Length,
            Ended = connected.Count(w => w.Ended),
            Closed = burst.ClosedCount(),
            CloseCodes = burst.CloseCodes(),
            OutOfOrder = burst.OutOfOrder,
            Unexpected = burst.Unexpected,
            Receipts = latency.TotalCount,
            LatencyP50Ns = latency.TotalCount == 0 ? 0 : latency.GetValueAtPercentile(50),
            LatencyP99Ns = latency.TotalCount == 0 ? 0 : latency.GetValueAtPercentile(99),
            LatencyMaxNs = latency.TotalCount == 0 ? 0 : latency.GetMaxValue(),
            TimeToAllNs = all && completeAt.Length > 0 ? completeAt[^1] : (long)ToNs(end - start),
            MemberCompleteP50Ns = completeAt.Length == 0 ? 0 : completeAt[completeAt.Length / 2],
            SendNs = (long)ToNs(sent - start),
            ArrivalP10Ns = arrival.TotalCount == 0 ? 0 : arrival.GetValueAtPercentile(10),
            ArrivalP50Ns = arrival.TotalCount == 0 ? 0 : arrival.GetValueAtPercentile(50),
            ArrivalP90Ns = arrival.TotalCount == 0 ? 0 : arrival.GetValueAtPercentile(90),
            Start = start,
            TimedOut = timedOut,
            ClientCpuMs = (cpuAtEnd - cpuAtStart).TotalMilliseconds,
            FirstFailure = connected.Select(w => w.Failure).FirstOrDefault(f => f is not null),
        };
    }

    internal static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
}
