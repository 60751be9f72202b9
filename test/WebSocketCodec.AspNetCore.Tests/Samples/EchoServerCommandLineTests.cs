using System.Diagnostics;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The demo server's command line refuses a bad number of seconds with a usage error, before it starts.</summary>
public sealed class EchoServerCommandLineTests
{
    [Theory]
    [InlineData("--keepalive", "-1")]
    [InlineData("--idle-timeout", "-0.5")]
    [InlineData("--idle-timeout", "abc")]
    [InlineData("--keepalive", "NaN")]
    public async Task ABadNumberOfSecondsIsAUsageError(string option, string value)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            ArgumentList = { typeof(EchoServerHost).Assembly.Location, option, value, "--host", "127.0.0.1", "--port", "0" },
        };
        using Process process = Process.Start(start)!;
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
                process.Kill(); // it started listening: the test fails below
            }
        }

        string printed = await error + await output;
        Assert.Equal(1, process.ExitCode);
        Assert.Contains($"{option} takes 0 to 86400 seconds, not '{value}'.", printed, StringComparison.Ordinal);
        Assert.DoesNotContain("listening on", printed, StringComparison.Ordinal);
    }
}
