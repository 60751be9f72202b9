using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>A sample program run as its own process (<c>dotnet Sample.dll args</c>): its output lines are kept for
/// waits and failure messages; it can be signalled (SIGKILL, SIGSTOP, SIGCONT, SIGTERM); it is killed on dispose if it
/// still runs (a SIGSTOPped one is continued first, so the kill is not held up).</summary>
public sealed class SampleProcess : IDisposable
{
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _lines = new();
    private readonly Task _reading;

    private SampleProcess(Process process, string name)
    {
        _process = process;
        Name = name;
        _reading = Task.WhenAll(Pump(process.StandardOutput), Pump(process.StandardError));
    }

    /// <summary>A name for messages (the program and its port, say).</summary>
    public string Name { get; }

    /// <summary>The process id.</summary>
    public int Id => _process.Id;

    /// <summary>Whether the process has exited.</summary>
    public bool HasExited => _process.HasExited;

    /// <summary>Everything printed so far, out and error, one line each.</summary>
    public string Output => string.Join('\n', _lines);

    /// <summary>Starts <paramref name="program"/> (the path of a built .dll) with <paramref name="arguments"/>.</summary>
    public static SampleProcess Start(string name, string program, params string[] arguments)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(program);
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return new SampleProcess(Process.Start(start)!, name);
    }

    /// <summary>How many lines it printed so far (a mark for <see cref="WaitForLineAsync"/>'s <c>since</c>).</summary>
    public int LineCount => _lines.Count;

    /// <summary>Waits until a line satisfies <paramref name="match"/> (among those printed after the first
    /// <paramref name="since"/>); fails with the output when the process exits first or <paramref name="timeout"/>
    /// passes.</summary>
    public async Task<string> WaitForLineAsync(Func<string, bool> match, TimeSpan timeout, int since = 0)
    {
        long start = Stopwatch.GetTimestamp();
        while (true)
        {
            if (_lines.Skip(since).FirstOrDefault(match) is { } line)
            {
                return line;
            }

            if (_process.HasExited)
            {
                await _reading.WaitAsync(TimeSpan.FromSeconds(5));
                if (_lines.Skip(since).FirstOrDefault(match) is { } last)
                {
                    return last;
                }

                throw new InvalidOperationException($"{Name} exited ({_process.ExitCode}) before the line came:\n{Output}");
            }

            if (Stopwatch.GetElapsedTime(start) > timeout)
            {
                throw new TimeoutException($"{Name} printed no such line within {timeout.TotalSeconds} s:\n{Output}");
            }

            await Task.Delay(20);
        }
    }

    /// <summary>How many lines satisfy <paramref name="match"/> (among those printed after the first
    /// <paramref name="since"/>).</summary>
    public int Count(Func<string, bool> match, int since = 0) => _lines.Skip(since).Count(match);

    /// <summary>Sends <paramref name="signal"/> (KILL, STOP, CONT, TERM) to the process.</summary>
    public void Signal(string signal)
    {
        using Process kill = Process.Start("kill", ["-" + signal, _process.Id.ToString(CultureInfo.InvariantCulture)])!;
        kill.WaitForExit();
    }

    /// <summary>Waits for the exit; false when <paramref name="timeout"/> passed first.</summary>
    public async Task<bool> WaitForExitAsync(TimeSpan timeout)
    {
        try
        {
            await _process.WaitForExitAsync().WaitAsync(timeout);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    /// <summary>Kills the process if it still runs.</summary>
    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Signal("CONT");
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit(10_000);
        }

        _process.Dispose();
    }

    private async Task Pump(StreamReader reader)
    {
        while (await reader.ReadLineAsync() is { } line)
        {
            _lines.Enqueue(line);
        }
    }
}
