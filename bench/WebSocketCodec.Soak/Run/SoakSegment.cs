using System.Buffers;
using System.Diagnostics;
using System.Net.Security;
using System.Runtime.CompilerServices;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Soak;

/// <summary>Runs one segment: fresh websockets over every transport at once (ours over HTTP/1.1 and HTTP/2 streams,
/// cleartext and TLS, and node's ws; with permessage-deflate, <see cref="SoakDeflate"/>), each with its share of the
/// segment's frames; then checks that both pools balanced.</summary>
public static class SoakSegment
{
    private static readonly SslClientAuthenticationOptions TrustAnything = new()
    {
        // The soak's own server: a self-signed certificate made at start.
        RemoteCertificateValidationCallback = static (_, _, _, _) => true,
    };

    /// <summary>Runs segment <paramref name="index"/> of <paramref name="frames"/> frames against <paramref name="servers"/>.</summary>
    public static async Task<SegmentResult> RunAsync(
        SoakOptions options, SoakMaterial material, SoakServers servers, long index, long frames, Action<string>? log, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(servers);
        var result = new SegmentResult { Index = index, PlannedFrames = frames };
        string? nodeSkip = options.Transports.Any(SoakOptions.IsNode) ? NodeSoakClient.SkipReason() : null;
        if (nodeSkip is null && options.Transports.Any(SoakOptions.IsNode))
        {
            await NodeSoakClient.EnsureInstalledAsync(options.NodeDirectory, cancellationToken).ConfigureAwait(false);
        }

        var clientPool = new CountingArrayPool();
        long serverRented = servers.Pool.Rented;
        var payloads = ArrayPool<byte>.Shared;
        int connections = Math.Max(options.Connections, options.Transports.Count);
        long perConnection = Math.Max(1, frames / connections);
        using var watchdog = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        using var h2Plain = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler());
        using var h2Tls = new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(TrustAnything));
        var clientOptions = new WebSocketClientOptions
        {
            Tls = TrustAnything,
            Session = new WebSocketSessionOptions { Pool = clientPool, CloseTimeout = TimeSpan.FromSeconds(10) },
            HandshakeTimeout = TimeSpan.FromSeconds(30),
        };

        var verified = new StrongBox<long>(); // messages verified so far by our clients: the watchdog's sign of progress
        var tasks = new List<Task>();
        var stopwatch = Stopwatch.StartNew();
        var nodeConnections = new Dictionary<string, List<int>>();
        for (int c = 0; c < connections; c++)
        {
            string transport = options.Transports[c % options.Transports.Count];
            if (!result.Transports.TryGetValue(transport, out SoakCounts? counts))
            {
                result.Transports[transport] = counts = new SoakCounts();
            }

            if (SoakOptions.IsNode(transport))
            {
                if (nodeSkip is not null)
                {
                    result.Skipped[transport] = nodeSkip;
                    result.Transports.Remove(transport);
                }
                else
                {
                    (nodeConnections.TryGetValue(transport, out List<int>? list) ? list : nodeConnections[transport] = []).Add(c);
                }

                continue;
            }

            int connection = c;
            int ordinal = c / options.Transports.Count; // the websocket's number within its transport
            tasks.Add(RunOursAsync(transport, connection, ordinal));
        }

        foreach ((string transport, List<int> list) in nodeConnections)
        {
            SoakCounts counts = result.Transports[transport];
            Uri url = transport == SoakOptions.NodeTls ? servers.Tls : servers.Plain;
            bool deflate = SoakOptions.IsDeflate(transport);
            tasks.Add(Task.Run(async () =>
            {
                counts.Add(await NodeSoakClient.RunAsync(
                    options.NodeDirectory, url, list.Count, perConnection, options, index, list[0], deflate, watchdog.Token).ConfigureAwait(false));
                Ended(transport);
            }, CancellationToken.None));
        }

        Task all = Task.WhenAll(tasks);
        long lastProgress = -1;
        DateTime lastChange = DateTime.UtcNow;
        while (await Task.WhenAny(all, Task.Delay(TimeSpan.FromSeconds(1), CancellationToken.None)).ConfigureAwait(false) != all)
        {
            long progress = Volatile.Read(ref verified.Value) + servers.Pool.Rented;
            if (progress != lastProgress)
            {
                (lastProgress, lastChange) = (progress, DateTime.UtcNow);
            }
            else if (DateTime.UtcNow - lastChange > options.StallTimeout && !watchdog.IsCancellationRequested)
            {
                log?.Invoke($"segment {index}: nothing moved for {options.StallTimeout.TotalSeconds} s; stopping it");
                await watchdog.CancelAsync().ConfigureAwait(false);
            }
        }

        await all.ConfigureAwait(false);
        result.Seconds = stopwatch.Elapsed.TotalSeconds;
        // The servers end their websockets right after the clients saw the close: give them a moment to return buffers.
        for (int i = 0; i < 100 && (servers.Pool.Outstanding != 0 || clientPool.Outstanding != 0); i++)
        {
            await Task.Delay(50, CancellationToken.None).ConfigureAwait(false);
        }

        result.ServerPoolRented = servers.Pool.Rented - serverRented;
        result.ServerPoolOutstanding = servers.Pool.Outstanding;
        result.ClientPoolRented = clientPool.Rented;
        result.ClientPoolOutstanding = clientPool.Outstanding;
        return result;

        async Task RunOursAsync(string transport, int connection, int ordinal)
        {
            SoakCounts counts = result.Transports[transport];
            var mine = new SoakCounts { Connections = 1 };
            try
            {
                bool tls = transport is SoakOptions.H1Tls or SoakOptions.H2Tls;
                Uri url = SoakOptions.IsSpanNetty(transport)
                    ? servers.SpanNetty ?? throw new InvalidOperationException("no SpanNetty echo server: build the soak with -p:WithSpanNetty=true")
                    : tls ? servers.Tls : servers.Plain;
                int variant = SoakDeflate.Variant(transport, index, ordinal);
                WebSocketClientOptions offer = SoakOptions.IsDeflate(transport) ? clientOptions with { Deflate = SoakDeflate.Offer(variant) } : clientOptions;
                WebSocketConnection channel = transport is SoakOptions.H2 or SoakOptions.H2Tls or SoakOptions.H2Deflate or SoakOptions.SpanNettyH2
                    ? await WebSocketHttp2Client.ConnectAsync(tls ? h2Tls : h2Plain, url, offer, watchdog.Token).ConfigureAwait(false)
                    : await WebSocketClient.ConnectAsync(url, offer, watchdog.Token).ConfigureAwait(false);
                using (channel)
                {
                    if (SoakOptions.IsDeflate(transport) && SoakDeflate.Mismatch(channel.Deflate, variant) is { } mismatch)
                    {
                        throw new InvalidOperationException(mismatch); // a deflate soak must not run uncompressed
                    }

                    if (!SoakOptions.IsDeflate(transport) && channel.Deflate is not null)
                    {
                        throw new InvalidOperationException("permessage-deflate was negotiated though not offered");
                    }

                    var traffic = new SoakTraffic(material, options.Seed, index, connection, options.BoundaryEvery);
                    var soak = new SoakConnection(channel, traffic, mine, payloads, options.Window, $"{transport} #{connection}", verified);
                    await soak.RunAsync(perConnection, watchdog.Token).ConfigureAwait(false);
                }
            }
            catch (Exception error)
            {
                mine.Fail($"{transport} #{connection}: {error.GetType().Name}: {error.Message}");
            }

            lock (counts)
            {
                counts.Add(mine);
            }

            Ended(transport);
        }

        void Ended(string transport)
        {
            lock (result.TransportSeconds)
            {
                result.TransportSeconds[transport] = Math.Max(result.TransportSeconds.GetValueOrDefault(transport), stopwatch.Elapsed.TotalSeconds);
            }
        }
    }
}
