using System.Diagnostics;

namespace WebSocketCodec.AspNetCore.Tests;

/// <summary>
/// Finds Chromium, installing Debian's <c>chromium</c> package with apt-get when it is missing and apt-get can run
/// (as root). Where neither works, <see cref="SkipReason"/> says why and the browser tests report it.
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

        using var timeout = new CancellationTokenSource(TimeSpan.FromMinutes(6));
        string log = await RunAsync("apt-get", "update -qq", timeout.Token)
            + await RunAsync("apt-get", "install -y -qq --no-install-recommends chromium", timeout.Token);
        Executable = Find() ?? throw new InvalidOperationException("apt-get did not install chromium:\n" + log);
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
