using System.Globalization;
using System.Net;
using System.Text.Json;

namespace WebSocketCodec.Broadcast.Client;

/// <summary>
/// The client process: opens its websockets (<paramref name="concurrency"/> handshakes at a time), prints
/// <c>connected N</c>, then prints <c>d SEQUENCE NANOSECONDS</c> each time every websocket has a broadcast (the delivery
/// time: the last receipt minus the server's stamp). On a <c>report</c> line on stdin it prints its
/// <see cref="ClientReport"/> as JSON; at the end of stdin it closes every websocket and exits.
/// </summary>
internal static class ClientMode
{
    public static async Task<int> RunAsync(int port, int webSockets, int broadcasts, int concurrency)
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

        ReceivingWebSocket[] connected = [.. open.OfType<ReceivingWebSocket>()];
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

        return 0;
    }

    internal static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);
}
