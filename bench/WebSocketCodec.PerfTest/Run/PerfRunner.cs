using System.Diagnostics;
using System.Net;
using HdrHistogram;

namespace WebSocketCodec.PerfTest;

/// <summary>Runs each variant in turn: its server in a process pinned to core 0, the load from this process on core
/// 1, warm-up, then the measured window with the server's GC counts read before and after.</summary>
public static class PerfRunner
{
    private static readonly bool Tracing = Environment.GetEnvironmentVariable("PERFTEST_TRACE") == "1";

    private static void Trace(string step)
    {
        if (Tracing)
        {
            Console.Error.WriteLine($"{DateTime.Now:HH:mm:ss.fff} {step}");
        }
    }

    private static double PerWebSocket(IReadOnlyDictionary<string, string>? before, IReadOnlyDictionary<string, string>? after, string field, int webSockets) =>
        before is null || after is null ? 0
        : (long.Parse(after[field], System.Globalization.CultureInfo.InvariantCulture) - long.Parse(before[field], System.Globalization.CultureInfo.InvariantCulture)) / (double)webSockets;

    /// <summary>A variant's name in the results: over HTTP/2 a Kestrel variant gets <c>-h2</c> (<c>raw-upgrade</c> is
    /// then <c>raw-h2</c>); the SpanNetty HTTP/2 variants are named so already.</summary>
    private static string ResultName(string variant, bool http2) =>
        !http2 || PerfTest.Variants.OnSpanNettyHttp2.Contains(variant) ? variant
        : variant == PerfTest.Variants.RawUpgrade ? "raw-h2" : variant + "-h2";

    public static async Task<PerfResult> RunVariantAsync(string variant, PerfOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(options);
        bool scale = options.Deflate && options.Memory; // see DeflateScale
        await using ServerProcess server = await ServerProcess.StartAsync(
            variant, options.Tls, options.Http2, core: options.Pin ? 0 : -1, options.SpanNettyTransport, deflate: options.Deflate,
            deflateLevel: options.DeflateLevel, receiveBuffer: scale ? DeflateScale.ReceiveBuffer(options.Payload) : 0);
        Trace("started");
        if (options.Pin && !ClientPinning.IsPinnedAtStart)
        {
            ServerProcess.PinToCore(Process.GetCurrentProcess(), core: 1);
        }

        var endPoint = new IPEndPoint(IPAddress.Loopback, server.Port);
        var connections = new List<ILoadConnection>();
        using var http2Handler = new SocketsHttpHandler
        {
            EnableMultipleHttp2Connections = false,
            SslOptions = new System.Net.Security.SslClientAuthenticationOptions { RemoteCertificateValidationCallback = (_, _, _, _) => true },
        };
        var invoker = new Lazy<HttpMessageInvoker>(() => new HttpMessageInvoker(http2Handler, disposeHandler: false));
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        try
        {
            IReadOnlyDictionary<string, string>? memoryBefore = options.Memory ? await server.MemoryAsync() : null;
            IReadOnlyDictionary<string, string>? memoryAfter = null;
            var setup = Stopwatch.StartNew();
            if (scale)
            {
                connections.AddRange(await DeflateScale.OpenAsync(endPoint, options, cancellationToken));
                setup.Stop();
                Trace("primed");
                memoryAfter = await server.MemoryAsync();
            }

            for (int i = connections.Count; i < options.Connections; i++)
            {
                connections.Add(options.Client == LoadClients.ClientWebSocket
                    ? await ClientWebSocketLoad.OpenAsync(endPoint, options.Tls, options.Http2, options.Http2 ? invoker.Value : null, options.Payload, options.Window, cancellationToken)
                    : options.Http2
                    ? await LoadConnection.OpenHttp2Async(invoker.Value, endPoint, options.Tls, options.Payload, options.Window, cancellationToken)
                    : await LoadConnection.OpenAsync(endPoint, options.Tls, options.Payload, options.Window, options.Deflate ? options.ContextTakeover : null, cancellationToken));
            }

            Task[] running = connections.Select(c => c.RunAsync(stop.Token)).ToArray();
            Trace("connected");
            await FirstEchoesAsync(connections, running, cancellationToken);
            await Task.Delay(options.Warmup, cancellationToken);
            var before = await server.GcAsync();
            TimeSpan serverCpu = server.CpuTime, clientCpu = Process.GetCurrentProcess().TotalProcessorTime;
            var clock = Stopwatch.StartNew();
            connections.ForEach(c => c.Measuring = true);
            await Task.Delay(options.Duration, cancellationToken);
            connections.ForEach(c => c.Measuring = false);
            double seconds = clock.Elapsed.TotalSeconds;
            EnsureNoneEnded(connections);
            serverCpu = server.CpuTime - serverCpu;
            clientCpu = Process.GetCurrentProcess().TotalProcessorTime - clientCpu;
            var after = await server.GcAsync();
            memoryAfter ??= options.Memory ? await server.MemoryAsync() : null;
            Trace("measured");
            await stop.CancelAsync();
            foreach (ILoadConnection connection in connections)
            {
                await connection.DisposeAsync();
            }

            try
            {
                await Task.WhenAll(running).WaitAsync(TimeSpan.FromSeconds(5), CancellationToken.None);
            }
            catch (TimeoutException)
            {
                Trace("stuck: " + string.Join(", ", connections.Select(c => c.State)));
                throw;
            }

            Trace("stopped");
            LongHistogram latency = LatencyRecording.Create();
            long messages = 0;
            foreach (ILoadConnection connection in connections)
            {
                latency.Add(connection.Latency);
                messages += connection.Received;
            }

            return new PerfResult(
                options.Deflate ? DeflateMode.Label(variant, options.DeflateLevel) : ResultName(variant, options.Http2), Math.Max(8, options.Payload), options.Window, options.Connections, options.Tls, seconds, messages,
                messages / seconds, LatencyRecording.Percentile(latency, 50) / 1000.0, LatencyRecording.Percentile(latency, 95) / 1000.0, LatencyRecording.Percentile(latency, 99) / 1000.0,
                after.Gen0 - before.Gen0, after.Gen1 - before.Gen1, after.Gen2 - before.Gen2,
                messages == 0 ? 0 : (after.Allocated - before.Allocated) / (double)messages)
            {
                Client = options.Client,
                IsManaged = server.IsManaged,
                AllocationSamples = after.Sampled,
                ServerCpuMicrosecondsPerMessage = messages == 0 ? 0 : serverCpu.TotalMicroseconds / messages,
                ClientCpuMicrosecondsPerMessage = messages == 0 ? 0 : clientCpu.TotalMicroseconds / messages,
                Deflate = !options.Deflate ? "off" : options.ContextTakeover ? "takeover" : "no-takeover",
                WireBytesInPerMessage = options.Deflate ? connections.OfType<LoadConnection>().Average(c => c.FrameLength) : 0,
                WireBytesOutPerMessage = options.Deflate && messages > 0 ? connections.OfType<LoadConnection>().Sum(c => c.WireBytesReceived) / (double)messages : 0,
                CompressedReplyShare = options.Deflate && messages > 0 ? connections.OfType<LoadConnection>().Sum(c => c.CompressedReplies) / (double)messages : 0,
                Rss = memoryAfter is null ? 0 : long.Parse(memoryAfter["rss"], System.Globalization.CultureInfo.InvariantCulture),
                RssPerWebSocket = PerWebSocket(memoryBefore, memoryAfter, "rss", options.Connections),
                HeapPerWebSocket = PerWebSocket(memoryBefore, memoryAfter, "heap", options.Connections),
                ServerBusy = scale ? serverCpu.TotalSeconds / seconds : 0,
                SetupSeconds = scale ? setup.Elapsed.TotalSeconds : 0,
            };
        }
        finally
        {
            await stop.CancelAsync();
            foreach (ILoadConnection connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    /// <summary>Fails the run when a connection's receive loop ended before the runner stopped it: an echo server never
    /// closes a websocket, so the server closed or broke it, and its rate would read as a stall rather than as the
    /// failure it is.</summary>
    private static void EnsureNoneEnded(List<ILoadConnection> connections)
    {
        ILoadConnection[] ended = connections.Where(c => c.Ended).ToArray();
        if (ended.Length > 0)
        {
            throw new InvalidOperationException(
                $"{ended.Length} of {connections.Count} load connections ended during the run (the server closed or broke them; see its output): "
                + string.Join(", ", ended.Select(c => c.State)));
        }
    }

    /// <summary>Waits (at most 60 s) until every connection has had an echo back, so the warm-up starts from a
    /// running exchange; fails early when a connection's loops ended before that.</summary>
    private static async Task FirstEchoesAsync(List<ILoadConnection> connections, Task[] running, CancellationToken cancellationToken)
    {
        var waited = Stopwatch.StartNew();
        while (connections.Any(c => c.Echoed == 0))
        {
            // A server that closes a websocket ends its receive loop only: the send loop waits for echoes.
            Task? ended = running.FirstOrDefault(t => t.IsCompleted);
            if (ended is not null || connections.Any(c => c.Ended))
            {
                if (ended is not null)
                {
                    await ended; // its failure, when it failed
                }

                throw new InvalidOperationException("A load connection stopped before its first echo: " + string.Join(", ", connections.Select(c => c.State)));
            }

            if (waited.Elapsed > TimeSpan.FromSeconds(60))
            {
                throw new TimeoutException("No echo within 60 s: " + string.Join(", ", connections.Select(c => c.State)));
            }

            await Task.Delay(10, cancellationToken);
        }
    }
}
