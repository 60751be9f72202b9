using System.Diagnostics;
using System.Globalization;

namespace WebSocketCodec.PerfTest;

/// <summary>A variant's server in its own process, pinned to one core; reports its GC counts on request.</summary>
internal sealed class ServerProcess : IAsyncDisposable
{
    private readonly Process _process;

    private ServerProcess(Process process, int port)
    {
        _process = process;
        Port = port;
    }

    public int Port { get; }

    /// <summary>Whether the server runs on .NET (its GC counts and allocation mean something); false for the peers
    /// (Bun, the C echo), which answer <c>gc</c> with zeros.</summary>
    public bool IsManaged { get; private init; } = true;

    /// <summary>The server's process id.</summary>
    public int ProcessId => _process.Id;

    /// <summary>Where Linux keeps taskset (util-linux).</summary>
    public const string Taskset = "/usr/bin/taskset";

    /// <summary>The suffix of a variant served by another build of this tool (<c>--baseline</c>): <c>ours@baseline</c>.</summary>
    public const string BaselineSuffix = "@baseline";

    /// <summary>The perf tool's assembly of the other build (for example the previous main), if given.</summary>
    public static string? BaselineAssembly { get; set; }

    /// <summary>Starts <paramref name="variant"/>'s server; <paramref name="core"/> -1 leaves it unpinned;
    /// <paramref name="environment"/> adds variables (for example <c>DOTNET_gcServer</c>).</summary>
    public static async Task<ServerProcess> StartAsync(
        string variant, bool tls, bool http2, int core, string spanNettyTransport = "socket", IReadOnlyDictionary<string, string>? environment = null, bool deflate = false,
        string deflateLevel = DeflateMode.Optimal, int receiveBuffer = 0)
    {
        string self = typeof(ServerProcess).Assembly.Location;
        if (variant.EndsWith(BaselineSuffix, StringComparison.Ordinal))
        {
            self = BaselineAssembly ?? throw new InvalidOperationException($"{variant} needs --baseline.");
            variant = variant[..^BaselineSuffix.Length];
        }

        bool spanNetty = Variants.IsSpanNetty(variant);
        bool peer = PeerServers.IsPeer(variant);
        if (peer && ((tls && !PeerServers.ServesTls(variant)) || http2 || deflate))
        {
            throw new NotSupportedException($"{variant} runs over HTTP/1.1 without {(PeerServers.ServesTls(variant) ? "" : "TLS or ")}permessage-deflate.");
        }

        string[] server = peer ? await PeerServers.CommandAsync(variant, tls)
            : spanNetty
            ? ["dotnet", SpanNettyServer(self), "--perf", "--port", "0", "--path", "/", "--threads", "1", "--codec", Variants.SpanNettyCodec(variant), "--transport", spanNettyTransport]
            : ["dotnet", self, "serve", "--variant", variant];

        // Pinned from the start with taskset where it exists, so the runtime sizes itself for one core (thread pool,
        // Kestrel's I/O queues) instead of spinning threads that compete for it; else pinned after start.
        bool taskset = core >= 0 && ClientPinning.MachineCores > 1 && OperatingSystem.IsLinux() && File.Exists(Taskset);
        var start = new ProcessStartInfo(taskset ? Taskset : server[0])
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        SteadyState.Apply(start);
        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[name] = value;
        }

        if (spanNetty)
        {
            // As a production server that measures would run: SpanNetty's leak detector (on by default, tracking one
            // buffer in 128 with a record per access) off, for every SpanNetty variant alike.
            start.Environment["io.netty.leakDetection.level"] = "disabled";
        }

        if (taskset)
        {
            start.ArgumentList.Add("-c");
            start.ArgumentList.Add((core % ClientPinning.MachineCores).ToString(CultureInfo.InvariantCulture));
            start.ArgumentList.Add(server[0]);
        }

        foreach (string argument in server.Skip(1))
        {
            start.ArgumentList.Add(argument);
        }

        if (tls)
        {
            start.ArgumentList.Add("--tls");
        }

        if (http2 && !spanNetty) // a SpanNetty codec knows its protocol
        {
            start.ArgumentList.Add("--h2");
        }

        if (deflate)
        {
            start.ArgumentList.Add("--deflate");
            if (deflateLevel != DeflateMode.Optimal)
            {
                start.ArgumentList.Add("--deflate-level");
                start.ArgumentList.Add(deflateLevel);
            }

            if (receiveBuffer > 0)
            {
                start.ArgumentList.Add("--receive-buffer");
                start.ArgumentList.Add(receiveBuffer.ToString(CultureInfo.InvariantCulture));
            }
        }

        Process process = Process.Start(start)!;
        if (core >= 0 && !taskset)
        {
            PinToCore(process, core);
        }
        string? line = await process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(60));
        if (line is null || !line.StartsWith("port ", StringComparison.Ordinal))
        {
            string error = await process.StandardError.ReadToEndAsync();
            process.Kill(entireProcessTree: true);
            throw new InvalidOperationException($"The {variant} server did not start: {line} {error}");
        }

        return new ServerProcess(process, int.Parse(line.AsSpan(5), CultureInfo.InvariantCulture)) { IsManaged = !peer };
    }

    /// <summary>The SpanNetty echo server's assembly, where the optional SpanNetty build put it (same configuration as
    /// this tool), else beside this tool.</summary>
    private static string SpanNettyServer(string self)
    {
        string binary = Path.GetDirectoryName(self)!; // .../bench/WebSocketCodec.PerfTest/bin/<configuration>/net10.0
        string configuration = Path.GetFileName(Path.GetDirectoryName(binary)!);
        string repository = Path.GetFullPath(Path.Combine(binary, "..", "..", "..", "..", ".."));
        string server = Path.Combine(repository, "samples", "SpanNettyEchoServer", "bin", configuration, "net10.0", "SpanNettyEchoServer.dll");
        string beside = Path.Combine(binary, "SpanNettyEchoServer.dll");
        return File.Exists(server) ? server : File.Exists(beside) ? beside : throw new InvalidOperationException(
            $"The SpanNetty variants need {server}: build it with 'dotnet build src/WebSocketCodec.SpanNetty.sln -c {configuration} -p:WithSpanNetty=true' (see README, SpanNetty).");
    }

    /// <summary>Pins a process to one core when the machine has more than one (so results read per core).</summary>
    public static void PinToCore(Process process, int core)
    {
        if (ClientPinning.MachineCores > 1 && (OperatingSystem.IsLinux() || OperatingSystem.IsWindows()))
        {
            process.ProcessorAffinity = 1 << (core % ClientPinning.MachineCores);
        }
    }

    /// <summary>The server process's CPU time so far (user + system, all threads).</summary>
    public TimeSpan CpuTime
    {
        get
        {
            _process.Refresh();
            return _process.TotalProcessorTime;
        }
    }

    /// <summary>The server's GC counts (gen 0, 1, 2), total allocated bytes, and the types its allocation samples
    /// named since the last call.</summary>
    public async Task<(int Gen0, int Gen1, int Gen2, long Allocated, string Sampled)> GcAsync()
    {
        await _process.StandardInput.WriteLineAsync("gc");
        await _process.StandardInput.FlushAsync();
        string? line = await _process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(20));
        if (line is null)
        {
            string errors = await _process.StandardError.ReadToEndAsync().WaitAsync(TimeSpan.FromSeconds(5));
            throw new InvalidOperationException($"The server exited ({(_process.HasExited ? _process.ExitCode.ToString(CultureInfo.InvariantCulture) : "running")}): {errors}");
        }

        string[] parts = line.Split(' ');
        return (int.Parse(parts[1], CultureInfo.InvariantCulture), int.Parse(parts[2], CultureInfo.InvariantCulture),
            int.Parse(parts[3], CultureInfo.InvariantCulture), long.Parse(parts[4], CultureInfo.InvariantCulture),
            parts.Length > 5 ? parts[5] : "-");
    }

    /// <summary>The server's memory after a forced compacting full collection: the fields of its <c>memory</c> line
    /// (<c>rss</c>, <c>heap</c>, <c>committed</c> in bytes; <c>gc</c>, <c>concurrent</c>, <c>heaps</c>).</summary>
    public async Task<IReadOnlyDictionary<string, string>> MemoryAsync()
    {
        string? line = null;
        try
        {
            await _process.StandardInput.WriteLineAsync("memory");
            await _process.StandardInput.FlushAsync();
            line = await _process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(120));
        }
        catch (IOException)
        {
            // The server is gone: its exit code and errors below say why.
        }

        if (line is null || !line.StartsWith("memory ", StringComparison.Ordinal))
        {
            string errors = line is null ? await _process.StandardError.ReadToEndAsync().WaitAsync(TimeSpan.FromSeconds(5)) : line;
            throw new InvalidOperationException($"The server did not report its memory ({(_process.HasExited ? "exited " + _process.ExitCode.ToString(CultureInfo.InvariantCulture) : "running")}): {errors}");
        }

        return line.Split(' ', StringSplitOptions.RemoveEmptyEntries).Skip(1)
            .Select(part => part.Split('=', 2)).ToDictionary(pair => pair[0], pair => pair[1]);
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            _process.StandardInput.Close(); // the server stops when stdin ends
        }
        catch (IOException)
        {
            // The server is gone already (its stdin's pipe is broken); the error that found it out says why.
        }

        try
        {
            await _process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(15));
        }
        catch (TimeoutException)
        {
            _process.Kill(entireProcessTree: true);
        }

        _process.Dispose();
    }
}
