using System.Diagnostics;
using System.Text;

namespace WebSocketCodec.Packaging.Tests.Infrastructure;

/// <summary>
/// A child <c>dotnet</c> process (the SDK, or an app's dll) with its stdout and stderr collected line by line. The
/// MSBuild variables the test host inherits from <c>dotnet test</c> are removed, so a child build resolves its SDK as
/// a user's would. Disposing kills the process tree if it still runs.
/// </summary>
internal sealed class DotnetProcess : IAsyncDisposable
{
    private readonly Process _process;
    private readonly StringBuilder _output = new();
    private readonly List<(Func<string, bool> Match, TaskCompletionSource<string> Found)> _waiters = [];
    private readonly TaskCompletionSource _exited = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private DotnetProcess(Process process) => _process = process;

    /// <summary>Everything the process printed so far, stdout and stderr interleaved.</summary>
    public string Output
    {
        get
        {
            lock (_output)
                return _output.ToString();
        }
    }

    public int ExitCode => _process.ExitCode;

    public static DotnetProcess Start(
        string workingDirectory, IEnumerable<string> arguments, IReadOnlyDictionary<string, string>? environment = null)
    {
        var info = new ProcessStartInfo(DotnetHost())
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            RedirectStandardInput = true,
            UseShellExecute = false,
        };
        foreach (string argument in arguments)
            info.ArgumentList.Add(argument);
        foreach (string name in info.Environment.Keys.ToList())
        {
            if (name.StartsWith("MSBuild", StringComparison.OrdinalIgnoreCase) || name == "MSBUILD_EXE_PATH")
                info.Environment.Remove(name);
        }

        info.Environment["DOTNET_NOLOGO"] = "1";
        info.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        info.Environment["DOTNET_SKIP_FIRST_TIME_EXPERIENCE"] = "1";
        foreach ((string name, string value) in environment ?? new Dictionary<string, string>())
            info.Environment[name] = value;

        var process = new Process { StartInfo = info, EnableRaisingEvents = true };
        var result = new DotnetProcess(process);
        process.OutputDataReceived += (_, e) => result.OnLine(e.Data);
        process.ErrorDataReceived += (_, e) => result.OnLine(e.Data);
        process.Exited += (_, _) => result._exited.TrySetResult();
        process.Start();
        process.StandardInput.Close();
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        return result;
    }

    /// <summary>Runs <c>dotnet</c> to the end (killed after <paramref name="timeout"/>).</summary>
    public static async Task<(int ExitCode, string Output)> RunAsync(
        string workingDirectory, IEnumerable<string> arguments, TimeSpan timeout,
        IReadOnlyDictionary<string, string>? environment = null)
    {
        await using DotnetProcess process = Start(workingDirectory, arguments, environment);
        await process.WaitForExitAsync(timeout);
        return (process.ExitCode, process.Output);
    }

    /// <summary>Waits for the process to end; throws <see cref="TimeoutException"/> (after killing it) if it does not
    /// within <paramref name="timeout"/>.</summary>
    public async Task WaitForExitAsync(TimeSpan timeout)
    {
        using var deadline = new CancellationTokenSource(timeout);
        try
        {
            await _process.WaitForExitAsync(deadline.Token);
        }
        catch (OperationCanceledException)
        {
            Kill();
            throw new TimeoutException($"dotnet {string.Join(' ', _process.StartInfo.ArgumentList)} did not end within {timeout}:\n{Output}");
        }
    }

    /// <summary>The first line (printed from now on, or already) that <paramref name="match"/> accepts.</summary>
    public async Task<string> WaitForLineAsync(Func<string, bool> match, TimeSpan timeout)
    {
        var found = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_output)
        {
            string? seen = _output.ToString().Split('\n').FirstOrDefault(match);
            if (seen is not null)
                return seen;
            _waiters.Add((match, found));
        }

        Task first = await Task.WhenAny(found.Task, _exited.Task, Task.Delay(timeout));
        if (first == found.Task)
            return await found.Task;
        string why = first == _exited.Task ? "exited first" : $"printed no such line within {timeout}";
        throw new TimeoutException($"dotnet {string.Join(' ', _process.StartInfo.ArgumentList)} {why}:\n{Output}");
    }

    public async ValueTask DisposeAsync()
    {
        Kill();
        await _process.WaitForExitAsync();
        _process.Dispose();
    }

    private void Kill()
    {
        try
        {
            if (!_process.HasExited)
                _process.Kill(entireProcessTree: true);
        }
        catch (InvalidOperationException)
        {
            // Already gone.
        }
    }

    private void OnLine(string? line)
    {
        if (line is null)
            return;
        lock (_output)
        {
            _output.Append(line).Append('\n');
            for (int i = _waiters.Count - 1; i >= 0; i--)
            {
                if (_waiters[i].Match(line))
                {
                    _waiters[i].Found.TrySetResult(line);
                    _waiters.RemoveAt(i);
                }
            }
        }
    }

    private static string DotnetHost() =>
        Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } host && File.Exists(host) ? host : "dotnet";
}
