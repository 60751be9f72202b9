using System.Runtime;

namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>Runs every (repeat, client count, variant), variants innermost so they share the machine's moment, each
/// over a fresh pair of actor systems (as Akka's RemotePingPong does for each client count: a stalled TLS handshake
/// cannot hold later runs, and every run starts without associations). The variants' order rotates by one each repeat
/// (no variant always runs first, or always after the same one), and a full blocking, compacting collection runs
/// before every run, so no run pays for the garbage of the one before it (both systems run in this process: there is
/// no child process to collect).</summary>
public static class PingPongRunner
{
    /// <summary>The variants whose transport can be loaded here (ours needs <c>WebSocketCodec.Akka.WebSocketTransport</c>).</summary>
    public static bool IsAvailable(string variant) =>
        variant is not (PingPongVariants.WebSocket or PingPongVariants.WebSocketHttp2 or PingPongVariants.WebSocketTls)
        || Type.GetType("WebSocketCodec.Akka.WebSocketTransport, WebSocketCodec.Akka") is not null;

    /// <summary>Whether a smoke run passes: it completed, or it is DotNetty's TLS stalling (the known defect of its
    /// TLS handler on .NET 10, reported as a stall, never a result).</summary>
    public static bool PassesSmoke(PingPongMeasurement result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return result.Status == RunStatus.Ok || (result.Status == RunStatus.Stalled && result.Variant == PingPongVariants.DotNettyTls);
    }

    /// <summary>The order of <paramref name="variants"/> in <paramref name="repeat"/> (1-based): the list rotated left
    /// by repeat − 1.</summary>
    public static IReadOnlyList<string> OrderOf(IReadOnlyList<string> variants, int repeat)
    {
        ArgumentNullException.ThrowIfNull(variants);
        if (variants.Count == 0)
        {
            return [];
        }

        int shift = (repeat - 1) % variants.Count;
        return [.. variants.Skip(shift), .. variants.Take(shift)];
    }

    /// <summary>A full, blocking, compacting collection (the large object heap included), and the finalizers it queued.</summary>
    public static void CollectFully()
    {
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
    }

    /// <summary>Runs the set; <paramref name="log"/> gets a line per run. The warm-up runs (repeat 0, one client, one
    /// per variant) are part of the results, and no median counts them.</summary>
    public static async Task<IReadOnlyList<PingPongMeasurement>> RunAsync(PingPongOptions options, Action<string>? log = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        using TestCertificate? certificate = options.Variants.Any(PingPongVariants.UsesTls) ? TestCertificate.Create() : null;
        var results = new List<PingPongMeasurement>();
        if (options.WarmUpRoundTrips > 0)
        {
            for (int position = 0; position < options.Variants.Count; position++)
            {
                CollectFully();
                PingPongMeasurement warm = await PingPongRun.RunAsync(options.Variants[position], 1, 0, options.WarmUpRoundTrips, options, certificate, cancellationToken).ConfigureAwait(false);
                warm = warm with { Position = position };
                log?.Invoke(warm.ToString());
                results.Add(warm);
            }
        }

        for (int repeat = 1; repeat <= options.Repeat; repeat++)
        {
            IReadOnlyList<string> order = OrderOf(options.Variants, repeat);
            foreach (int clients in options.Clients)
            {
                for (int position = 0; position < order.Count; position++)
                {
                    CollectFully();
                    PingPongMeasurement result = await PingPongRun.RunAsync(order[position], clients, repeat, options.RoundTrips, options, certificate, cancellationToken).ConfigureAwait(false);
                    result = result with { Position = position };
                    log?.Invoke(result.ToString());
                    results.Add(result);
                }
            }
        }

        return results;
    }
}
