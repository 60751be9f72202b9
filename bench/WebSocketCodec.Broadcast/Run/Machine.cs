using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>What a results page names about where it was measured: the commit, the date, the CPU, cores, OS and runtime.</summary>
internal static class Machine
{
    /// <summary>The checked-out commit (<c>git rev-parse --short HEAD</c> here, with <c>+changes</c> when the work tree
    /// differs from it), or "unknown".</summary>
    public static string Commit()
    {
        string? head = Git("rev-parse --short HEAD");
        if (head is null)
        {
            return "unknown";
        }

        return string.IsNullOrEmpty(Git("status --porcelain --untracked-files=no")) ? head : head + "+changes";
    }

    /// <summary>The CPU's model name (Linux), else the architecture.</summary>
    public static string Cpu()
    {
        try
        {
            string? line = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal)) : null;
            if (line is not null)
            {
                return line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
            }
        }
        catch (IOException)
        {
            // Fall through.
        }

        return RuntimeInformation.ProcessArchitecture.ToString();
    }

    /// <summary>One line: date (UTC), commit, CPU, cores, OS, runtime.</summary>
    public static string Describe() => string.Create(CultureInfo.InvariantCulture,
        $"{DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, commit {Commit()}, {Cpu()}, {Environment.ProcessorCount} cores, {RuntimeInformation.OSDescription}, .NET {Environment.Version}");

    private static string? Git(string arguments)
    {
        try
        {
            using var git = Process.Start(new ProcessStartInfo("git", arguments) { RedirectStandardOutput = true, RedirectStandardError = true });
            if (git is null)
            {
                return null;
            }

            string output = git.StandardOutput.ReadToEnd().Trim();
            git.WaitForExit();
            return git.ExitCode == 0 ? output : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }
}
