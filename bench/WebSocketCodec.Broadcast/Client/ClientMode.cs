using System.Globalization;
using System.Net;
using System.Text.Json;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// The client process: opens its websockets (<paramref name="concurrency"/> handshakes at a time), prints
/// <paramref name="stalled"/> websockets that never read (<see cref="StalledWebSocket"/>: not counted in deliveries), prints
/// <c>stalled K</c> and <c>connected N</c> (the reading ones), then prints <c>d SEQUENCE NANOSECONDS</c> each time every websocket has a broadcast (the delivery
/// time: the last receipt minus the server's stamp). On a <c>report</c> line on stdin it prints its
/// <see cref="ClientReport"/> as JSON; at the end of stdin it closes every websocket and exits.
/// </summary>
internal static class ClientMode
{
    public static async Task<int> RunAsync(int port, int webSockets, int broadcasts, int concurrency, int stalled = 0)
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
                    open[i] = await ReceivingWebSocket.ConnectAsync(server, deliveries, timeout.Token);
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
            if (command == "report")
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

    internal static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
}
