using System.Globalization;
using System.Text.Json;
using WebSocketCodec.Broadcast.Client;
using WebSocketCodec.Broadcast.Server;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>
/// The burst mode (<see cref="BroadcastOptions.Burst"/>): for each websocket count, payload and group variant
/// (interleaved), <see cref="BroadcastOptions.Repeat"/> times, a server process that relays every message a member
/// sends to the whole group (<c>serve --relay</c>: <see cref="SlowMemberPolicy.Close"/>, the session's default water
/// marks, hard limit and slow-consumer timeout) and one client process whose websockets all publish at once. One run:
/// connect, a warm-up burst (<see cref="BroadcastOptions.BurstWarmUp"/> messages each, checked but not timed), the
/// server's mark, the measured burst (<see cref="BroadcastOptions.Burst"/> messages each), the server's report.
/// </summary>
public static class BurstRunner
{
    public static async Task<IReadOnlyList<BurstMeasurement>> RunAsync(BroadcastOptions options, Action<string>? log = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        var results = new List<BurstMeasurement>();
        for (int run = 1; run <= options.Repeat; run++)
        {
            foreach (int webSockets in options.WebSockets)
            {
                foreach (int payload in options.Payloads)
                {
                    foreach (string variant in options.Variants)
                    {
                        BurstMeasurement result = await RunOneAsync(variant, payload, webSockets, run, options, log, cancellationToken);
                        log?.Invoke(result.ToString());
                        results.Add(result);
                    }
                }
            }
        }

        return results;
    }

    private static async Task<BurstMeasurement> RunOneAsync(
        string variant, int payload, int webSockets, int run, BroadcastOptions options, Action<string>? log, CancellationToken cancellationToken)
    {
        string F(int value) => value.ToString(CultureInfo.InvariantCulture);
        BurstMeasurement Failed(string why) => new()
        {
            Variant = variant, PayloadBytes = payload, WebSockets = webSockets, Messages = options.Burst, Run = run,
            ExpectedReceipts = (long)webSockets * webSockets * options.Burst, FirstFailure = why, LoadAverage = BroadcastRunner.LoadAverage(),
        };

        string[] serve = ["serve", "--variant", variant, "--payload", F(payload), "--relay"];
        using ChildProcess server = ChildProcess.Start("server", options.AllocationTypes ? [.. serve, "--allocation-types"] : serve);
        string portLine = await server.ReadLineAsync("port ", TimeSpan.FromSeconds(60), cancellationToken);
        int port = int.Parse(portLine["port ".Length..], CultureInfo.InvariantCulture);

        using ChildProcess client = ChildProcess.Start(
            "client", "client", "--port", F(port), "--websockets", F(webSockets), "--broadcasts", "1", "--concurrency", F(options.Concurrency), "--burst-payload", F(payload));
        string connectedLine = await client.ReadLineAsync("connected ", TimeSpan.FromSeconds(120 + (webSockets / 50)), cancellationToken);
        int connected = int.Parse(connectedLine["connected ".Length..], CultureInfo.InvariantCulture);
        if (connected != webSockets)
        {
            return Failed($"{connected} of {webSockets} websockets opened");
        }

        for (int i = 0; ; i++)
        {
            await server.WriteAsync("c");
            string members = await server.ReadLineAsync("members ", TimeSpan.FromSeconds(30), cancellationToken);
            if (int.Parse(members["members ".Length..], CultureInfo.InvariantCulture) == webSockets)
            {
                break;
            }

            if (i == 300)
            {
                return Failed("the server holds " + members);
            }

            await Task.Delay(100, cancellationToken);
        }

        log?.Invoke($"{variant} burst {payload} B x {webSockets} run {run}: {webSockets} connected; warm-up burst of {options.BurstWarmUp}, then {options.Burst} each");
        if (options.BurstWarmUp > 0)
        {
            BurstReport warm = await BurstAsync(client, options.BurstWarmUp, options.BurstTimeout, cancellationToken);
            if (warm.Complete != webSockets || warm.Closed != 0 || warm.OutOfOrder != 0 || warm.TimedOut)
            {
                log?.Invoke($"warm-up burst: {warm.Complete}/{webSockets} complete, {warm.Closed} closed ({warm.CloseCodes}), {warm.OutOfOrder} out of order{(warm.TimedOut ? ", timed out" : "")}");
            }
        }

        await server.WriteAsync("m");
        await server.ReadLineAsync("marked", TimeSpan.FromSeconds(30), cancellationToken); // before the clients publish
        BurstReport burst = await BurstAsync(client, options.Burst, options.BurstTimeout, cancellationToken);
        await server.WriteAsync("r");
        ServerReport serverReport = JsonSerializer.Deserialize<ServerReport>(
            await server.ReadLineAsync("{", TimeSpan.FromSeconds(60), cancellationToken), BroadcastServer.Json)!;
        double arrivedByRelaysDone = 0;
        if (serverReport.LastRelayReturned != 0)
        {
            await client.WriteAsync(string.Create(CultureInfo.InvariantCulture, $"arrived {serverReport.LastRelayReturned}\n"));
            string arrived = await client.ReadLineAsync("arrived ", TimeSpan.FromSeconds(30), cancellationToken);
            arrivedByRelaysDone = double.Parse(arrived["arrived ".Length..], CultureInfo.InvariantCulture);
        }

        return new BurstMeasurement
        {
            Variant = variant,
            PayloadBytes = payload,
            WebSockets = webSockets,
            Messages = options.Burst,
            Run = run,
            Complete = burst.Complete,
            Closed = burst.Closed,
            CloseCodes = burst.CloseCodes,
            Ended = burst.Ended,
            ServerClosed = serverReport.ClosedInAll,
            OutOfOrder = burst.OutOfOrder,
            Unexpected = burst.Unexpected + (int)serverReport.Fragments,
            Receipts = burst.Receipts,
            ExpectedReceipts = (long)webSockets * webSockets * options.Burst,
            Relayed = serverReport.Relayed,
            LatencyP50Ns = burst.LatencyP50Ns,
            LatencyP99Ns = burst.LatencyP99Ns,
            LatencyMaxNs = burst.LatencyMaxNs,
            TimeToAllNs = burst.TimeToAllNs,
            MemberCompleteP50Ns = burst.MemberCompleteP50Ns,
            SendNs = burst.SendNs,
            TimedOut = burst.TimedOut,
            ArrivalP10Ns = burst.ArrivalP10Ns,
            ArrivalP50Ns = burst.ArrivalP50Ns,
            ArrivalP90Ns = burst.ArrivalP90Ns,
            ArrivedByRelaysDone = arrivedByRelaysDone,
            AllocationTypes = serverReport.AllocationTypes,
            RelaysDoneNs = serverReport.LastRelayReturned == 0 ? 0 : (long)((serverReport.LastRelayReturned - burst.Start) * (1e9 / System.Diagnostics.Stopwatch.Frequency)),
            ServerCpuMs = serverReport.CpuMs,
            ServerUserCpuMs = serverReport.UserCpuMs,
            ServerAllocatedBytes = serverReport.AllocatedBytes,
            Collections = serverReport.Collections,
            ClientCpuMs = burst.ClientCpuMs,
            FirstFailure = serverReport.Error ?? burst.FirstFailure,
            LoadAverage = BroadcastRunner.LoadAverage(),
        };
    }

    private static async Task<BurstReport> BurstAsync(ChildProcess client, int messages, TimeSpan bound, CancellationToken cancellationToken)
    {
        await client.WriteAsync(string.Create(CultureInfo.InvariantCulture, $"burst {messages} {(long)bound.TotalMilliseconds}\n"));
        string line = await client.ReadLineAsync("burst ", bound + TimeSpan.FromSeconds(60), cancellationToken);
        return JsonSerializer.Deserialize<BurstReport>(line["burst ".Length..], ClientMode.Json)!;
    }
}
