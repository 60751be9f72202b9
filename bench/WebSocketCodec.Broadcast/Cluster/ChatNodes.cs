using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace WebSocketCodec.Broadcast.Cluster;

/// <summary>
/// The servers of one run: <c>samples/Chat</c> processes (the rooms are cluster groups with <c>--seeds</c>; one node
/// without it is the single-node baseline, its rooms local groups), started on free ports, up once each printed
/// <c>cluster members: N</c> (or <c>listening on</c>). Their CPU time comes from /proc.
/// </summary>
internal sealed class ChatNodes : IAsyncDisposable
{
    private readonly List<Process> _processes;

    private ChatNodes(List<Process> processes, int[] ports)
    {
        _processes = processes;
        Ports = ports;
    }

    public IReadOnlyList<int> Ports { get; }

    public IEnumerable<int> ProcessIds => _processes.Select(p => p.Id);

    public static async Task<ChatNodes> StartAsync(string chatDll, int nodes, bool cluster, TimeSpan bound)
    {
        int[] ports = [.. Enumerable.Range(0, nodes).Select(_ => FreePort())];
        var processes = new List<Process>();
        var ready = new List<Task>();
        foreach (int port in ports)
        {
            var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (string argument in (string[])[chatDll, "--port", port.ToString(CultureInfo.InvariantCulture)])
            {
                start.ArgumentList.Add(argument);
            }

            if (cluster)
            {
                start.ArgumentList.Add("--seeds");
                start.ArgumentList.Add($"http://127.0.0.1:{ports[0]}");
            }

            Process process = Process.Start(start)!;
            processes.Add(process);
            string expected = cluster ? $"cluster members: {nodes}" : "listening on ";
            ready.Add(WaitForLineAsync(process, line => line.StartsWith(expected, StringComparison.Ordinal), bound));
            _ = process.StandardError.ReadToEndAsync();
        }

        var started = new ChatNodes(processes, ports);
        try
        {
            await Task.WhenAll(ready);
        }
        catch
        {
            await started.DisposeAsync();
            throw;
        }

        return started;
    }

    /// <summary>Stops node <paramref name="index"/> (SIGSTOP) until it is killed at the end.</summary>
    public void Pause(int index)
    {
        using Process stop = Process.Start("kill", ["-STOP", _processes[index].Id.ToString(CultureInfo.InvariantCulture)])!;
        stop.WaitForExit();
    }

    /// <summary>Each node's CPU time so far (user + system), from /proc/PID/stat.</summary>
    public TimeSpan[] CpuTimes() => [.. _processes.Select(p => ProcCpu(p.Id))];

    public async ValueTask DisposeAsync()
    {
        foreach (Process process in _processes)
        {
            if (!process.HasExited)
            {
                process.Kill(entireProcessTree: true);
                await process.WaitForExitAsync();
            }

            process.Dispose();
        }
    }

    private static async Task WaitForLineAsync(Process process, Func<string, bool> match, TimeSpan bound)
    {
        using var timeout = new CancellationTokenSource(bound);
        while (await process.StandardOutput.ReadLineAsync(timeout.Token) is { } line)
        {
            if (match(line))
            {
                _ = process.StandardOutput.ReadToEndAsync(); // keep draining what it prints later
                return;
            }
        }

        throw new InvalidOperationException("a chat node exited before it was ready");
    }

    private static TimeSpan ProcCpu(int pid)
    {
        // Fields after the command's closing parenthesis: state is the 3rd field, utime the 14th, stime the 15th.
        string stat = File.ReadAllText($"/proc/{pid}/stat");
        string[] fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        long ticks = long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
        return TimeSpan.FromSeconds(ticks / 100.0); // USER_HZ
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
