using System.Globalization;
using System.Text.Json;
using HdrHistogram;
using WebSocketCodec.Broadcast.Client;
using WebSocketCodec.Broadcast.Server;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>
/// Runs every (websocket count, payload, variant) <see cref="BroadcastOptions.Repeat"/> times, the variants interleaved
/// innermost. One run: the variant's server process, one client process that opens every websocket, the warm-up
/// broadcasts, then the measured ones. Broadcasts are paced by delivery: the driver asks the server for the next one
/// when the client reports that every websocket has the previous one, so the server never has more than one broadcast
/// in flight and a slower variant is not also measured queueing behind itself. With stalled websockets
/// (<see cref="BroadcastOptions.Stalled"/>) delivery is still paced and measured over the reading ones; a broadcast
/// that the server reports as held (a loop waiting on a stalled member) ends the run as held instead of hanging it.
/// </summary>
public static class BroadcastRunner
{
    public static async Task<IReadOnlyList<BroadcastMeasurement>> RunAsync(BroadcastOptions options, Action<string>? log = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        var results = new List<BroadcastMeasurement>();
        for (int run = 1; run <= options.Repeat; run++)
        {
            foreach (int webSockets in options.WebSockets)
            {
                foreach (int payload in options.Payloads)
                {
                    foreach (string variant in options.Variants.Where(v => run == 1 || !options.Once.Contains(v)))
                    {
                        foreach (int stalled in options.Stalled)
                        {
                            BroadcastMeasurement result = await RunOneAsync(variant, payload, webSockets, stalled, run, options, log, cancellationToken);
                            log?.Invoke(result.ToString());
                            results.Add(result);
                        }
                    }
                }
            }
        }

        return results;
    }

    private static async Task<BroadcastMeasurement> RunOneAsync(
        string variant, int payload, int webSockets, int stalled, int run, BroadcastOptions options, Action<string>? log, CancellationToken cancellationToken)
    {
        string F(int value) => value.ToString(CultureInfo.InvariantCulture);
        int total = options.WarmUp + options.Broadcasts;
        string[] serve = ["serve", "--variant", variant, "--payload", F(payload), "--hold-bound-ms", F((int)options.HoldBound.TotalMilliseconds)];
        using ChildProcess server = ChildProcess.Start("server", options.AllocationTypes ? [.. serve, "--allocation-types"] : serve);
        string portLine = await server.ReadLineAsync("port ", TimeSpan.FromSeconds(60), cancellationToken);
        int port = int.Parse(portLine["port ".Length..], CultureInfo.InvariantCulture);

        using ChildProcess client = ChildProcess.Start(
            "client", "client", "--port", F(port), "--websockets", F(webSockets), "--broadcasts", F(total), "--concurrency", F(options.Concurrency), "--stalled", F(stalled));
        string stalledLine = await client.ReadLineAsync("stalled ", TimeSpan.FromSeconds(120 + (webSockets / 50)), cancellationToken);
        if (int.Parse(stalledLine["stalled ".Length..], CultureInfo.InvariantCulture) != stalled)
        {
            return await FailedAsync(client, variant, payload, webSockets, stalled, run, total, $"{stalledLine} of {stalled} opened", cancellationToken);
        }

        string connectedLine = await client.ReadLineAsync("connected ", TimeSpan.FromSeconds(120 + (webSockets / 50)), cancellationToken);
        int connected = int.Parse(connectedLine["connected ".Length..], CultureInfo.InvariantCulture);
        if (connected != webSockets)
        {
            return await FailedAsync(client, variant, payload, webSockets, stalled, run, total, $"{connected} of {webSockets} websockets opened", cancellationToken);
        }

        // The server counts a websocket once its application runs, a moment after the client has its 101 (a stalled one
        // once it is filled).
        for (int i = 0; ; i++)
        {
            await server.WriteAsync("c");
            string members = await server.ReadLineAsync("members ", TimeSpan.FromSeconds(30), cancellationToken);
            if (int.Parse(members["members ".Length..], CultureInfo.InvariantCulture) == webSockets + stalled)
            {
                break;
            }

            if (i == 300)
            {
                return await FailedAsync(client, variant, payload, webSockets, stalled, run, total, "the server holds " + members, cancellationToken);
            }

            await Task.Delay(100, cancellationToken);
        }

        log?.Invoke($"{variant} {payload} B x {webSockets} run {run}: {webSockets} connected, {stalled} stalled; {options.WarmUp} warm-up and {options.Broadcasts} measured broadcasts");
        var delivery = new LongHistogram(1, 60_000_000_000, 3);
        string? failure = null;
        TimeSpan timeout = stalled > 0 ? options.HoldBound + TimeSpan.FromSeconds(2) : options.DeliveryTimeout;
        try
        {
            await BroadcastAsync(server, client, 0, options.WarmUp, null, timeout, cancellationToken);
            await server.WriteAsync("m");
            await BroadcastAsync(server, client, options.WarmUp, options.Broadcasts, delivery, timeout, cancellationToken);
        }
        catch (TimeoutException error)
        {
            failure = error.Message;
        }

        await server.WriteAsync("r");
        ServerReport serverReport = JsonSerializer.Deserialize<ServerReport>(
            await server.ReadLineAsync("{", TimeSpan.FromSeconds(60), cancellationToken), BroadcastServer.Json)!;
        ClientReport clientReport = await ClientReportAsync(client, cancellationToken);
        return new BroadcastMeasurement
        {
            Variant = variant,
            PayloadBytes = payload,
            WebSockets = webSockets,
            Stalled = stalled,
            Run = run,
            Broadcasts = serverReport.Broadcasts,
            CpuMs = serverReport.CpuMs,
            UserCpuMs = serverReport.UserCpuMs,
            AllocatedBytes = serverReport.AllocatedBytes,
            Collections = serverReport.Collections,
            DeliveryP50Ns = delivery.TotalCount == 0 ? 0 : delivery.GetValueAtPercentile(50),
            DeliveryP99Ns = delivery.TotalCount == 0 ? 0 : delivery.GetValueAtPercentile(99),
            DeliveryMaxNs = delivery.TotalCount == 0 ? 0 : delivery.GetMaxValue(),
            Received = clientReport.Received,
            Expected = (long)webSockets * total,
            OutOfOrder = clientReport.OutOfOrder,
            Unexpected = clientReport.Unexpected,
            Failed = clientReport.Failed,
            FirstFailure = serverReport.HeldAfter is not null ? null : failure ?? serverReport.Error ?? clientReport.FirstFailure,
            HeldAfter = serverReport.HeldAfter,
            Skipped = serverReport.Skipped,
            StalledMembersAtEnd = serverReport.StalledMembers,
            StalledNotFilled = serverReport.StalledNotFilled,
            AllocationTypes = serverReport.AllocationTypes,
            LoadAverage = LoadAverage(),
        };
    }

    /// <summary>Broadcasts <paramref name="sequence"/>.. one at a time, each after the previous reached every websocket.</summary>
    private static async Task BroadcastAsync(
        ChildProcess server, ChildProcess client, int sequence, int count, LongHistogram? delivery, TimeSpan timeout, CancellationToken cancellationToken)
    {
        for (int i = sequence; i < sequence + count; i++)
        {
            await server.WriteAsync("b");
            string line;
            try
            {
                line = await client.ReadLineAsync("d ", timeout, cancellationToken);
            }
            catch (TimeoutException)
            {
                throw new TimeoutException($"broadcast {i} did not reach every websocket within {timeout.TotalSeconds} s");
            }

            string[] parts = line.Split(' ');
            if (int.Parse(parts[1], CultureInfo.InvariantCulture) != i)
            {
                throw new TimeoutException($"broadcast {parts[1]} was delivered while {i} was awaited");
            }

            delivery?.RecordValue(Math.Clamp(long.Parse(parts[2], CultureInfo.InvariantCulture), 1, 60_000_000_000));
        }
    }

    private static async Task<ClientReport> ClientReportAsync(ChildProcess client, CancellationToken cancellationToken)
    {
        await client.WriteAsync("report\n");
        return JsonSerializer.Deserialize<ClientReport>(await client.ReadLineAsync("{", TimeSpan.FromSeconds(60), cancellationToken), ClientMode.Json)!;
    }

    private static async Task<BroadcastMeasurement> FailedAsync(
        ChildProcess client, string variant, int payload, int webSockets, int stalled, int run, int total, string failure, CancellationToken cancellationToken)
    {
        ClientReport report = await ClientReportAsync(client, cancellationToken);
        return new BroadcastMeasurement
        {
            Variant = variant, PayloadBytes = payload, WebSockets = webSockets, Stalled = stalled, Run = run, Expected = (long)webSockets * total,
            Failed = report.Failed + 1, FirstFailure = failure + (report.FirstFailure is null ? "" : "; " + report.FirstFailure),
        };
    }

    /// <summary>The 1-minute load average (Linux), else 0.</summary>
    internal static double LoadAverage()
    {
        try
        {
            return double.Parse(File.ReadAllText("/proc/loadavg").Split(' ')[0], CultureInfo.InvariantCulture);
        }
        catch (IOException)
        {
            return 0;
        }
    }
}
