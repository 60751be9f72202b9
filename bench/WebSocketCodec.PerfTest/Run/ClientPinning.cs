using System.Diagnostics;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// Puts the load client on one core. On Linux, setting <see cref="Process.ProcessorAffinity"/> after start pins only
/// the calling thread (the threads already running keep both cores and steal the server's), so the client starts itself
/// again under <c>taskset</c>, before any work thread exists, and every thread it makes inherits the core.
/// </summary>
internal static class ClientPinning
{
    private const string Marker = "PERFTEST_PINNED";
    private const string CoresVariable = "PERFTEST_CORES";

    /// <summary>The machine's cores, also inside the pinned process (where <see cref="Environment.ProcessorCount"/>
    /// counts only the one it may use).</summary>
    public static int MachineCores =>
        int.TryParse(Environment.GetEnvironmentVariable(CoresVariable), out int cores) && cores > 0 ? cores : Environment.ProcessorCount;

    /// <summary>Whether this process already runs under taskset (or cannot, so it pins itself after start).</summary>
    public static bool IsPinnedAtStart => Environment.GetEnvironmentVariable(Marker) == "1";

    /// <summary>Whether this process should run again under taskset.</summary>
    public static bool ShouldRestart =>
        !IsPinnedAtStart && MachineCores > 1 && OperatingSystem.IsLinux() && File.Exists(ServerProcess.Taskset);

    /// <summary>Runs this same command under taskset on <paramref name="core"/>, sharing this console; returns its exit
    /// code.</summary>
    public static async Task<int> RunPinnedAsync(IEnumerable<string> args, int core, CancellationToken cancellationToken)
    {
        var start = new ProcessStartInfo(ServerProcess.Taskset) { UseShellExecute = false };
        start.ArgumentList.Add("-c");
        start.ArgumentList.Add((core % MachineCores).ToString(System.Globalization.CultureInfo.InvariantCulture));
        start.ArgumentList.Add(Environment.ProcessPath ?? "dotnet");
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet")
        {
            start.ArgumentList.Add(typeof(ClientPinning).Assembly.Location);
        }

        foreach (string argument in args)
        {
            start.ArgumentList.Add(argument);
        }

        SteadyState.Apply(start);
        start.Environment[Marker] = "1";
        start.Environment[CoresVariable] = MachineCores.ToString(System.Globalization.CultureInfo.InvariantCulture);
        using Process child = Process.Start(start)!;
        try
        {
            await child.WaitForExitAsync(cancellationToken);
        }
        catch (OperationCanceledException)
        {
            // Ctrl+C reaches the child too (same process group); give it a moment to stop its server.
            if (!child.WaitForExit(TimeSpan.FromSeconds(10)))
            {
                child.Kill(entireProcessTree: true);
            }

            throw;
        }

        return child.ExitCode;
    }
}
