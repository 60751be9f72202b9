using System.Diagnostics;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>A sample's built program run as a process (<c>dotnet sample.dll args</c>), its output redirected.</summary>
public static class SampleProcess
{
    /// <summary>Starts the sample whose assembly is <paramref name="assembly"/>.</summary>
    public static Process Start(System.Reflection.Assembly assembly, params string[] arguments)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(assembly.Location);
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return Process.Start(start)!;
    }

    /// <summary>Runs it to its exit (killed after 30 s: the test then fails on what it printed).</summary>
    /// <returns>The exit code, and what it printed to stdout and stderr.</returns>
    public static async Task<(int ExitCode, string Output, string Error)> RunToExitAsync(System.Reflection.Assembly assembly, params string[] arguments)
    {
        using Process process = Start(assembly, arguments);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        Task<string> output = process.StandardOutput.ReadToEndAsync(timeout.Token);
        Task<string> error = process.StandardError.ReadToEndAsync(timeout.Token);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill(); // it started listening: the test fails on what it printed
            }
        }

        return (process.ExitCode, await output, await error);
    }
}
