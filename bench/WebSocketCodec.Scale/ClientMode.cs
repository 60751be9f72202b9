using System.Diagnostics;
using System.Net;
using System.Text.Json;

namespace WebSocketCodec.Scale;

/// <summary>
/// A client process: opens its share of the websockets from its source addresses (round robin), reports
/// <c>connected</c>; on <c>start</c> every websocket sends its batches; on <c>stop</c> the batches end, the last echoes
/// are awaited, and it reports <c>held</c>; on <c>close</c> every websocket closes with a Close exchange, it reports
/// <c>closed</c> and exits. Commands come on stdin, reports go to stdout as JSON lines.
/// </summary>
internal static class ClientMode
{
    public static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);

    public static async Task<int> RunAsync(ClientSettings settings)
    {
        var stats = new LoadStats();
        var server = new IPEndPoint(IPAddress.Loopback, settings.Port);
        var clock = Stopwatch.StartNew();
        var open = new IdleWebSocket?[settings.WebSockets];
        using (var gate = new SemaphoreSlim(settings.Concurrency))
        {
            await Task.WhenAll(Enumerable.Range(0, settings.WebSockets).Select(async i =>
            {
                await gate.WaitAsync();
                try
                {
                    open[i] = await IdleWebSocket.ConnectAsync(settings.Sources[i % settings.Sources.Count], server, stats, settings.HandshakeTimeout, settings.Path);
                }
                finally
                {
                    gate.Release();
                }
            }));
        }

        IdleWebSocket[] webSockets = [.. open.OfType<IdleWebSocket>()];
        Report(new ClientReport { Event = "connected", Open = webSockets.Length, Failures = new(stats.Failures), Handshakes = stats.HandshakeBuckets(), Seconds = clock.Elapsed.TotalSeconds });

        using var hold = new CancellationTokenSource();
        Task batches = Task.CompletedTask;
        while (await Console.In.ReadLineAsync() is { } command)
        {
            switch (command)
            {
                case "start":
                    clock.Restart();
                    batches = Task.WhenAll(webSockets.Select((w, i) => w.SendBatchesAsync(new Random(settings.Seed + i), settings.MinInterval, settings.MaxInterval, hold.Token)));
                    break;
                case "stop":
                    await hold.CancelAsync();
                    await batches;
                    await WaitForEchoesAsync(webSockets, TimeSpan.FromSeconds(15));
                    long sent = webSockets.Sum(w => (long)w.Sent), received = webSockets.Sum(w => (long)w.Received);
                    if (received < sent)
                    {
                        stats.Fail("echoes missing after the hold");
                    }

                    Report(new ClientReport
                    {
                        Event = "held", Open = webSockets.Count(w => !w.Reading.IsCompleted), Failures = new(stats.Failures),
                        RoundTrips = stats.RoundTripBuckets(), Batches = stats.Batches, Sent = sent, Received = received, Seconds = clock.Elapsed.TotalSeconds,
                    });
                    break;
                case "close":
                    clock.Restart();
                    int clean = 0;
                    using (var gate = new SemaphoreSlim(settings.Concurrency))
                    {
                        bool[] closed = await Task.WhenAll(webSockets.Select(async w =>
                        {
                            await gate.WaitAsync();
                            try
                            {
                                return await w.CloseAsync(TimeSpan.FromSeconds(10));
                            }
                            finally
                            {
                                gate.Release();
                            }
                        }));
                        clean = closed.Count(c => c);
                    }

                    if (clean < webSockets.Length)
                    {
                        stats.Fail("close: no Close answered");
                    }

                    Report(new ClientReport { Event = "closed", ClosedCleanly = clean, Failures = new(stats.Failures), Seconds = clock.Elapsed.TotalSeconds });
                    return 0;
            }
        }

        foreach (IdleWebSocket webSocket in webSockets)
        {
            webSocket.Abort(); // the coordinator went away
        }

        return 1;
    }

    private static async Task WaitForEchoesAsync(IdleWebSocket[] webSockets, TimeSpan limit)
    {
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed < limit && webSockets.Any(w => w.Received < w.Sent && !w.Reading.IsCompleted))
        {
            await Task.Delay(50);
        }
    }

    private static void Report(ClientReport report)
    {
        Console.Out.WriteLine(JsonSerializer.Serialize(report, Json));
        Console.Out.Flush();
    }
}
