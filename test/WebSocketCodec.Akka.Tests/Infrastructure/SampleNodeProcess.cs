using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using WebSocketCodec.Samples.AkkaRemoting;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary><c>samples/AkkaRemoting</c> run as a process (<c>dotnet AkkaRemoting.dll args</c>, the program built with
/// the tests), its output redirected; killed on dispose if it is still running.</summary>
public sealed class SampleNodeProcess : IDisposable
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(30);
    private readonly Process _process;

    private SampleNodeProcess(Process process) => _process = process;

    /// <summary>Starts the sample with <paramref name="arguments"/>.</summary>
    public static SampleNodeProcess Start(params string[] arguments)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(typeof(Greeter).Assembly.Location);
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return new SampleNodeProcess(Process.Start(start)!);
    }

    /// <summary>Runs the sample to its exit (killed after 30 s: the test then fails on what it printed).</summary>
    public static async Task<(int ExitCode, string Output, string Error)> RunToExitAsync(params string[] arguments)
    {
        using SampleNodeProcess run = Start(arguments);
        using var timeout = new CancellationTokenSource(Limit);
        Task<string> output = run._process.StandardOutput.ReadToEndAsync(timeout.Token);
        Task<string> error = run._process.StandardError.ReadToEndAsync(timeout.Token);
        await run._process.WaitForExitAsync(timeout.Token);
        return (run._process.ExitCode, await output, await error);
    }

    /// <summary>Reads the output up to the <c>listening on ADDRESS</c> line and returns the address.</summary>
    public async Task<string> ListeningAddressAsync()
    {
        using var timeout = new CancellationTokenSource(Limit);
        while (await _process.StandardOutput.ReadLineAsync(timeout.Token) is { } line)
        {
            if (line.StartsWith("listening on ", StringComparison.Ordinal))
            {
                return line["listening on ".Length..];
            }
        }

        throw new InvalidOperationException("The sample exited before it listened: " + await _process.StandardError.ReadToEndAsync(timeout.Token));
    }

    /// <summary>Sends SIGTERM and waits for the exit; returns the exit code and the rest of the output.</summary>
    public async Task<(int ExitCode, string Output)> TerminateAsync()
    {
        using var timeout = new CancellationTokenSource(Limit);
        using (Process kill = Process.Start("kill", ["-TERM", _process.Id.ToString(CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync(timeout.Token);
        }

        string rest = await _process.StandardOutput.ReadToEndAsync(timeout.Token);
        await _process.WaitForExitAsync(timeout.Token);
        return (_process.ExitCode, rest);
    }

    /// <summary>Kills the process if it still runs.</summary>
    public void Dispose()
    {
        if (!_process.HasExited)
        {
            _process.Kill(); // the test failed before it stopped the sample
        }

        _process.Dispose();
    }
}
