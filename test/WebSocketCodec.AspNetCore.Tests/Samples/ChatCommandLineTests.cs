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
        using Process process = SampleProcess.Start(typeof(ChatServerHost).Assembly, "--host", "127.0.0.1", "--port", "0");
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
        (int exitCode, string output, string error) = await SampleProcess.RunToExitAsync(typeof(ChatServerHost).Assembly, "--host", "not-an-address", "--port", "0");

        Assert.Equal(1, exitCode);
        Assert.Contains("cannot start: --host must be an IP address or localhost", error, StringComparison.Ordinal);
        Assert.DoesNotContain("listening on", output, StringComparison.Ordinal);
    }
}
