using System.Diagnostics;

namespace WebSocketCodec.AspNetCore.Tests.Infrastructure;

/// <summary>
/// Finds Chromium, installing Debian's <c>chromium</c> package with apt-get when it is missing and apt-get can run
/// (as root). Where neither works (no apt-get, not root, or the package cannot be fetched), <see cref="SkipReason"/>
/// says why and the browser tests report themselves skipped with it.
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
            log = "apt-get took more than 6 minutes.";
        }

        Executable = Find();
        if (Executable is null)
        {
            // A package source that cannot be reached is the machine's problem, not the code's: say so loudly.
            SkipReason = "apt-get could not install chromium:\n" + log[Math.Max(0, log.Length - 2000)..];
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
