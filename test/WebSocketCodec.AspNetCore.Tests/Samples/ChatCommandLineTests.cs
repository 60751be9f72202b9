using System.Diagnostics;
using WebSocketCodec.Samples.Chat;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The chat sample as a process: <c>--port 0</c> prints one <c>listening on</c> line with the page's URL, the
/// page is served there, and SIGTERM stops it cleanly; a bad <c>--host</c> is refused before it listens.</summary>
public sealed class ChatCommandLineTests
{
    [SkippableFact]
    public async Task ItPrintsWhereItListensServesThePageAndStopsOnSigterm()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1).");
        using Process process = Start("--host", "127.0.0.1", "--port", "0");
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        try
        {
            string? line = await process.StandardOutput.ReadLineAsync(timeout.Token);
            Assert.NotNull(line);
            Assert.Matches(@"^listening on http://127\.0\.0\.1:\d+/$", line);

            using var http = new HttpClient();
            string page = await http.GetStringAsync(new Uri(line["listening on ".Length..]), timeout.Token);
            Assert.Contains("<title>WebSocketCodec chat</title>", page, StringComparison.Ordinal);

            using (Process kill = Process.Start("kill", ["-TERM", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
            {
                await kill.WaitForExitAsync(timeout.Token);
            }

            await process.WaitForExitAsync(timeout.Token);
            Assert.Equal(0, process.ExitCode);
            Assert.Equal("stopped", (await process.StandardOutput.ReadToEndAsync(timeout.Token)).Trim());
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill(); // the test fails above
            }
        }
    }

    [Fact]
    public async Task AHostThatIsNotAnAddressIsRefused()
    {
        using Process process = Start("--host", "not-an-address", "--port", "0");
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

        Assert.Equal(1, process.ExitCode);
        Assert.Contains("cannot start: --host must be an IP address or localhost", await error, StringComparison.Ordinal);
        Assert.DoesNotContain("listening on", await output, StringComparison.Ordinal);
    }

    private static Process Start(params string[] arguments)
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(typeof(ChatServerHost).Assembly.Location);
        foreach (string argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        return Process.Start(start)!;
    }
}
