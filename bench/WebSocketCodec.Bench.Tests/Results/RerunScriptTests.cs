using System.Diagnostics;

namespace WebSocketCodec.Bench.Tests.Results;

/// <summary><c>bench/rerun-published.sh --list</c> (it never runs a step here) accounts for every page in
/// <c>bench/results</c>: each is written by one of its steps or named as history (a page no step makes).</summary>
public sealed class RerunScriptTests
{
    [SkippableFact]
    public async Task EveryPageInTheResultsIsMadeByAStepOrNamedAsHistory()
    {
        Skip.If(OperatingSystem.IsWindows(), "the script is bash");
        string root = ResultsStampTests.RepositoryRoot();
        using var bash = Process.Start(new ProcessStartInfo("bash", [Path.Combine(root, "bench", "rerun-published.sh"), "--list"]) { RedirectStandardOutput = true, RedirectStandardError = true })!;
        string listing = await bash.StandardOutput.ReadToEndAsync();
        await bash.WaitForExitAsync(RawHttp.Timeout(30));
        Assert.Equal(0, bash.ExitCode);

        string[] pages = [.. Directory.EnumerateFiles(Path.Combine(root, "bench", "results"), "*.md")
            .Select(f => Path.GetFileName(f))
            .Where(n => n != "README.md")
            .Select(n => n.EndsWith(".stamp.md", StringComparison.Ordinal) ? n[..^".stamp.md".Length] + ".log" : n)];
        Assert.NotEmpty(pages);
        Assert.Equal([], pages.Where(p => !listing.Contains(p, StringComparison.Ordinal)));
    }
}
