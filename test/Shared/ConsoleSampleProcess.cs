using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;

namespace WebSocketCodec.Testing;

/// <summary>A sample's built program run as a process (<c>dotnet sample.dll args</c>) that a test talks to: lines are
/// written to its input, its output lines (out and error) are kept for bounded waits and failure messages, it can be
/// signalled (INT, TERM, KILL, STOP, CONT) and its input closed; killed on dispose if it still runs (a stopped one is
/// continued first, so the kill is not held up).</summary>
public sealed class ConsoleSampleProcess : IDisposable
{
    private readonly Process _process;
    private readonly ConcurrentQueue<string> _lines = new();
    private readonly Task _reading;

    private ConsoleSampleProcess(Process process, string name)
    {
        _process = process;
        Name = name;
        _reading = Task.WhenAll(PumpAsync(process.StandardOutput), PumpAsync(process.StandardError));
    }

    /// <summary>A name for messages.</summary>
    public string Name { get; }

    /// <summary>Everything printed so far, one line each, prefixed with the name.</summary>
    public string Output => string.Join('\n', _lines.Select(line => $"{Name}> {line}"));

    /// <summary>The lines printed so far.</summary>
    public IReadOnlyList<string> Lines => [.. _lines];

    /// <summary>How many lines it printed so far (a mark for <see cref="WaitForLineAsync"/>'s <c>since</c>).</summary>
    public int LineCount => _lines.Count;

    /// <summary>The exit code, once it exited.</summary>
    public int ExitCode => _process.ExitCode;

    /// <summary>The process id.</summary>
    public int Id => _process.Id;

    /// <summary>Whether the process has exited.</summary>
    public bool HasExited => _process.HasExited;

    /// <summary>Starts <paramref name="program"/> (the path of a built .dll) with <paramref name="arguments"/>.</summary>
    public static ConsoleSampleProcess Start(string name, string program, params string[] arguments) =>
        Start(name, program, null, arguments);

    /// <summary>Starts the sample whose assembly is <paramref name="assembly"/>, its input redirected;
    /// <paramref name="environment"/> sets (or, with null, removes) variables of the environment it inherits.</summary>
    public static ConsoleSampleProcess Start(
        string name, System.Reflection.Assembly assembly, IReadOnlyDictionary<string, string?>? environment, params string[] arguments)
    {
        ArgumentNullException.ThrowIfNull(assembly);
        return Start(name, assembly.Location, environment, arguments);
    }

    private static ConsoleSampleProcess Start(string name, string program, IReadOnlyDictionary<string, string?>? environment, string[] arguments)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            StandardInputEncoding = new System.Text.UTF8Encoding(encoderShouldEmitUTF8Identifier: false),
            StandardOutputEncoding = System.Text.Encoding.UTF8,
        };
        start.ArgumentList.Add(program);
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach ((string key, string? value) in environment ?? new Dictionary<string, string?>())
        {
            if (value is null)
            {
                start.Environment.Remove(key);
            }
            else
            {
                start.Environment[key] = value;
            }
        }

        return new ConsoleSampleProcess(Process.Start(start)!, name);
    }

    /// <summary>Writes a line to its input.</summary>
    public async Task WriteLineAsync(string line)
    {
        await _process.StandardInput.WriteLineAsync(line);
        await _process.StandardInput.FlushAsync();
    }

    /// <summary>Closes its input: the program reads the end of it.</summary>
    public void CloseInput() => _process.StandardInput.Close();

    /// <summary>Waits until a line satisfies <paramref name="match"/> (among those printed after the first
    /// <paramref name="since"/>) and returns it; fails with the output when the process exits first or
    /// <paramref name="timeout"/> passes.</summary>
    public async Task<string> WaitForLineAsync(Func<string, bool> match, TimeSpan timeout, int since = 0) =>
        (await WaitForLineAtAsync(match, timeout, since)).Line;

    /// <summary>As <see cref="WaitForLineAsync"/>, with the line's index (a mark for later waits).</summary>
    public async Task<(string Line, int Index)> WaitForLineAtAsync(Func<string, bool> match, TimeSpan timeout, int since = 0)
    {
        long start = Stopwatch.GetTimestamp();
        while (true)
        {
            if (Find(match, since) is { } found)
            {
                return found;
            }

            if (_process.HasExited)
            {
                await _reading.WaitAsync(TimeSpan.FromSeconds(10));
                return Find(match, since) ?? throw new InvalidOperationException($"{Name} exited ({_process.ExitCode}) before the line came:\n{Output}");
            }

            if (Stopwatch.GetElapsedTime(start) > timeout)
            {
                throw new TimeoutException($"{Name} printed no such line within {timeout.TotalSeconds} s:\n{Output}");
            }

            await Task.Delay(20); // the polling step over the lines read so far
        }
    }

    /// <summary>How many lines satisfy <paramref name="match"/> (among those printed after the first
    /// <paramref name="since"/>).</summary>
    public int Count(Func<string, bool> match, int since = 0) => _lines.Skip(since).Count(match);

    /// <summary>Waits for the exit and for every line it printed (then <see cref="ExitCode"/> says how it ended); false
    /// when <paramref name="timeout"/> passed first.</summary>
    public async Task<bool> WaitForExitAsync(TimeSpan timeout)
    {
        try
        {
            await _process.WaitForExitAsync().WaitAsync(timeout);
            await _reading.WaitAsync(timeout);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    /// <summary>Sends <paramref name="signal"/> (INT, TERM, KILL, STOP, CONT) to the process with kill(1).</summary>
    public void Signal(string signal)
    {
        using Process kill = Process.Start("kill", ["-" + signal, _process.Id.ToString(CultureInfo.InvariantCulture)])!;
        kill.WaitForExit();
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

    private (string Line, int Index)? Find(Func<string, bool> match, int since)
    {
        int index = 0;
        foreach (string line in _lines)
        {
            if (index >= since && match(line))
            {
                return (line, index);
            }

            index++;
        }

        return null;
    }

    private async Task PumpAsync(StreamReader reader)
    {
        while (await reader.ReadLineAsync() is { } line)
        {
            _lines.Enqueue(line);
        }
    }
}
