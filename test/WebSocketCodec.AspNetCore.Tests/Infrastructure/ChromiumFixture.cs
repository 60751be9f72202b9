using System.Diagnostics;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>
/// Finds Chromium, installing Debian's <c>chromium</c> package with apt-get when it is missing and apt-get can run
/// (as root). Where it cannot be installed because the machine cannot (no apt-get, not root) or the package source is
/// unreachable, <see cref="SkipReason"/> says why and the browser tests report themselves skipped with it; any other
/// install failure throws, so every browser test fails with apt-get's output.
/// </summary>
public sealed class ChromiumFixture : IAsyncLifetime
{
    private static readonly string[] Names = ["chromium", "chromium-browser", "google-chrome"];

    public string? Executable { get; private set; }

    public string? SkipReason { get; private set; }

    public async Task InitializeAsync()
    {
        Executable = Find();
        if (Executable is not null)
        {
            return;
        }

        if (Which("apt-get") is null || Environment.UserName != "root")
        {
            SkipReason = "Chromium is not installed and apt-get cannot install it here (needs Debian and root).";
            return;
        }

        string log;
        try
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(6));
            log = await RunAsync("apt-get", "update -qq", timeout.Token)
                + await RunAsync("apt-get", "install -y -qq --no-install-recommends chromium", timeout.Token);
        }
        catch (OperationCanceledException)
        {
            throw new InvalidOperationException("apt-get took more than 6 minutes to install chromium.");
        }

        Executable = Find();
        if (Executable is null)
        {
            // A package source that cannot be reached is the machine's problem, not the code's: skipped, with the line
            // that shows it. Anything else (a renamed package, a broken dpkg) is a failure.
            string tail = log[Math.Max(0, log.Length - 3000)..];
            string? unreachable = WebSocketCodec.Testing.InstallOutcome.UnreachableLine(log);
            SkipReason = unreachable is not null
                ? "the Debian package source is unreachable, so chromium could not be installed: " + unreachable
                : throw new InvalidOperationException("apt-get could not install chromium:\n" + tail);
        }
    }

    public Task DisposeAsync() => Task.CompletedTask;

    private static string? Find() => Names.Select(Which).FirstOrDefault(path => path is not null);

    private static string? Which(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Select(dir => Path.Combine(dir, name)).FirstOrDefault(File.Exists);

    private static async Task<string> RunAsync(string file, string arguments, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(file, arguments) { RedirectStandardOutput = true, RedirectStandardError = true };
        start.Environment["DEBIAN_FRONTEND"] = "noninteractive";
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync(cancellationToken);
        Task<string> error = process.StandardError.ReadToEndAsync(cancellationToken);
        await process.WaitForExitAsync(cancellationToken);
        return $"{file} {arguments}: exit {process.ExitCode}\n{await output}\n{await error}\n";
    }
}
