using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace WebSocketCodec.Bench;

/// <summary>
/// Where and how a results file was measured, as every page under <c>bench/results</c> states it: the commit, the date
/// (UTC), the CPU model, cores, runtime, OS and the exact command. One fixed block of lines, so a test can check every
/// page (bench/results/README.md describes it):
/// <code>
/// - commit: 1a2b3c4 (with uncommitted changes)
/// - date: 2026-11-27 07:40 UTC
/// - cpu: AMD EPYC 7763 64-Core Processor
/// - cores: 2
/// - runtime: .NET 10.0.12
/// - os: Debian GNU/Linux 12 (bookworm)
/// - command: `dotnet run -c Release --project bench/... -- ...`
/// </code>
/// (One copy, linked into every tool that writes a results file and into the tools' tests.)
/// </summary>
internal sealed record ResultsStamp(string Commit, string Date, string Cpu, string Cores, string Runtime, string Os, string Command)
{
    /// <summary>The marker line above the block.</summary>
    public const string Marker = "<!-- stamp: where this was measured (bench/results/README.md) -->";

    /// <summary>The block's keys, in their order.</summary>
    public static readonly IReadOnlyList<string> Keys = ["commit", "date", "cpu", "cores", "runtime", "os", "command"];

    /// <summary>What an old file says of a field that was not written down when it was measured.</summary>
    public const string NotRecorded = "not recorded";

    /// <summary>This process, now, for <paramref name="command"/> (the command line that makes the file).</summary>
    public static ResultsStamp Current(string command) => new(
        CurrentCommit(),
        DateTime.UtcNow.ToString("yyyy-MM-dd HH:mm", CultureInfo.InvariantCulture) + " UTC",
        CpuModel(),
        MachineCores().ToString(CultureInfo.InvariantCulture),
        RuntimeInformation.FrameworkDescription,
        RuntimeInformation.OSDescription,
        command);

    /// <summary>The checked-out commit (<c>git rev-parse --short HEAD</c> in the working folder), with
    /// "(with uncommitted changes)" when tracked files outside bench/results differ from it, or "unknown (no git)".</summary>
    public static string CurrentCommit()
    {
        string? head = Git("rev-parse --short HEAD");
        if (string.IsNullOrEmpty(head))
        {
            return "unknown (no git)";
        }

        // The pages themselves change as a run writes them (a soak's state file, the page being rewritten), and so does
        // the AFL corpus the coverage runs minimise back into the tree: only changes elsewhere make the code measured
        // differ from the commit.
        return string.IsNullOrEmpty(Git("status --porcelain --untracked-files=no -- :(top) :(top,exclude)bench/results :(top,exclude)bench/WebSocketCodec.Fuzz/afl/corpus")) ? head : head + " (with uncommitted changes)";
    }

    /// <summary>The machine's online cores (Linux: /sys/devices/system/cpu/online), not the process's: a tool that pins
    /// itself to one core (the perf tool's load) still stamps the machine it ran on. Else <see cref="Environment.ProcessorCount"/>.</summary>
    public static int MachineCores()
    {
        try
        {
            const string Online = "/sys/devices/system/cpu/online";
            if (File.Exists(Online))
            {
                int count = 0;
                foreach (string range in File.ReadAllText(Online).Trim().Split(',', StringSplitOptions.RemoveEmptyEntries))
                {
                    string[] ends = range.Split('-');
                    int first = int.Parse(ends[0], CultureInfo.InvariantCulture);
                    count += ends.Length == 2 ? int.Parse(ends[1], CultureInfo.InvariantCulture) - first + 1 : 1;
                }

                if (count > 0)
                {
                    return count;
                }
            }
        }
        catch (Exception error) when (error is IOException or UnauthorizedAccessException or FormatException or OverflowException)
        {
            // Fall through to the process's view.
        }

        return Environment.ProcessorCount;
    }

    /// <summary>The CPU's model name (Linux: /proc/cpuinfo), else the process architecture.</summary>
    public static string CpuModel()
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
            // Fall through to the architecture.
        }
        catch (UnauthorizedAccessException)
        {
            // Fall through to the architecture.
        }

        return RuntimeInformation.ProcessArchitecture.ToString();
    }

    /// <summary>The block: the marker, then one <c>- key: value</c> line per key (the command in backticks), and a blank line.</summary>
    public string ToMarkdown()
    {
        var text = new StringBuilder();
        text.Append(Marker).Append('\n');
        string[] values = Values();
        for (int i = 0; i < Keys.Count; i++)
        {
            text.Append("- ").Append(Keys[i]).Append(": ").Append(values[i]).Append('\n');
        }

        return text.Append('\n').ToString();
    }

    /// <summary><paramref name="page"/> with this block inserted after its first line when that is a <c>#</c>
    /// heading (and the blank line after it), else at its top.</summary>
    public string StampPage(string page)
    {
        ArgumentNullException.ThrowIfNull(page);
        if (page.StartsWith('#'))
        {
            int end = page.IndexOf('\n', StringComparison.Ordinal);
            if (end >= 0)
            {
                int after = end + 1;
                while (after < page.Length && (page[after] == '\n' || page[after] == '\r'))
                {
                    after++;
                }

                return page[..(end + 1)] + "\n" + ToMarkdown() + page[after..];
            }
        }

        return ToMarkdown() + page;
    }

    /// <summary>Reads the block from a page: the marker line, followed by every key in order, each with a value
    /// (null when the page has no such block).</summary>
    public static ResultsStamp? Parse(string page)
    {
        ArgumentNullException.ThrowIfNull(page);
        string[] lines = page.ReplaceLineEndings("\n").Split('\n');
        int start = Array.IndexOf(lines, Marker);
        if (start < 0 || start + Keys.Count >= lines.Length)
        {
            return null;
        }

        var values = new string[Keys.Count];
        for (int i = 0; i < Keys.Count; i++)
        {
            string prefix = "- " + Keys[i] + ": ";
            string line = lines[start + 1 + i];
            if (!line.StartsWith(prefix, StringComparison.Ordinal) || line.Length == prefix.Length || string.IsNullOrWhiteSpace(line[prefix.Length..]))
            {
                return null;
            }

            values[i] = line[prefix.Length..].Trim();
        }

        return new ResultsStamp(values[0], values[1], values[2], values[3], values[4], values[5], values[6]);
    }

    private string[] Values() => [Commit, Date, Cpu, Cores, Runtime, Os, Command.StartsWith('`') ? Command : "`" + Command + "`"];

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
            return git.WaitForExit(10_000) && git.ExitCode == 0 ? output : null;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return null;
        }
    }
}
