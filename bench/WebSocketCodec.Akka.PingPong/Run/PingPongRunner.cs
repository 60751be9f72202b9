namespace WebSocketCodec.Akka.PingPong.Run;

/// <summary>Runs every (repeat, client count, variant), variants innermost so they share the machine's moment, each
/// over a fresh pair of actor systems (as Akka's RemotePingPong does for each client count: a stalled TLS handshake
/// cannot hold later runs, and every run starts without associations).</summary>
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

    /// <summary>Runs the set; <paramref name="log"/> gets a line per run.</summary>
    public static async Task<IReadOnlyList<PingPongMeasurement>> RunAsync(PingPongOptions options, Action<string>? log = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        using TestCertificate? certificate = options.Variants.Any(PingPongVariants.UsesTls) ? TestCertificate.Create() : null;
        if (options.WarmUpRoundTrips > 0)
        {
            foreach (string variant in options.Variants)
            {
                PingPongMeasurement warm = await PingPongRun.RunAsync(variant, 1, 0, options.WarmUpRoundTrips, options, certificate, cancellationToken).ConfigureAwait(false);
                log?.Invoke("warm-up " + warm);
            }
        }

        var results = new List<PingPongMeasurement>();
        for (int repeat = 1; repeat <= options.Repeat; repeat++)
        {
            foreach (int clients in options.Clients)
            {
                foreach (string variant in options.Variants)
                {
                    PingPongMeasurement result = await PingPongRun.RunAsync(variant, clients, repeat, options.RoundTrips, options, certificate, cancellationToken).ConfigureAwait(false);
                    log?.Invoke(result.ToString());
                    results.Add(result);
                }
            }
        }

        return results;
    }
}
