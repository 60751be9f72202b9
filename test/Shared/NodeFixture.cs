using System.Diagnostics;

namespace WebSocketCodec.Testing;

/// <summary>
/// node's <c>ws</c> package, installed once per test process with <c>npm ci</c> from the committed lock file in
/// <c>node/</c> (<see cref="NpmInstall"/>). When node is not installed or the registry cannot be reached,
/// <see cref="SkipReason"/> says why and the tests report themselves skipped with it; any other install failure fails
/// every test of the class.
/// </summary>
public sealed class NodeFixture : IAsyncLifetime
{
    public string Directory { get; } = Path.Combine(AppContext.BaseDirectory, "node");

    public string? SkipReason { get; private set; }

    public async Task InitializeAsync() => SkipReason = await NpmInstall.EnsureAsync(Directory, "ws");

    public Task DisposeAsync() => Task.CompletedTask;

    /// <summary>Runs a program in the node folder; returns its exit code and output.</summary>
    public Task<(int Exit, string Output)> RunAsync(string file, string arguments, TimeSpan timeout) =>
        RunAsync(file, arguments, Directory, timeout);

    /// <summary>Runs a program in <paramref name="directory"/>; returns its exit code and output (killed, with its
    /// children, after <paramref name="timeout"/>).</summary>
    public static async Task<(int Exit, string Output)> RunAsync(string file, string arguments, string directory, TimeSpan timeout)
    {
        var start = new ProcessStartInfo(file, arguments)
        {
            WorkingDirectory = directory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using Process process = Process.Start(start)!;
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        try
        {
            await process.WaitForExitAsync().WaitAsync(timeout);
        }
        catch (TimeoutException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        return (process.ExitCode, await output + await error);
    }

    /// <summary>Starts the ws echo server and returns it with its port; dispose to stop it.</summary>
    public async Task<(Process Server, int Port)> StartEchoServerAsync(string script = "echo-server.mjs", string arguments = "")
    {
        var start = new ProcessStartInfo("node", $"{script} {arguments}")
        {
            WorkingDirectory = Directory,
            RedirectStandardOutput = true,
            RedirectStandardInput = true,
            RedirectStandardError = true,
        };
        Process process = Process.Start(start)!;
        string? line = await process.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(20));
        if (line is null || !line.StartsWith("port ", StringComparison.Ordinal))
        {
            process.Kill(entireProcessTree: true);
            throw new InvalidOperationException("The ws echo server did not start: " + line + await process.StandardError.ReadToEndAsync());
        }

        return (process, int.Parse(line.AsSpan(5), System.Globalization.CultureInfo.InvariantCulture));
    }

    /// <summary>The path of <paramref name="name"/> on PATH, or null.</summary>
    public static string? Which(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Select(dir => Path.Combine(dir, name)).FirstOrDefault(File.Exists);
}
