namespace WebSocketCodec.Benchmarks;

/// <summary>Copies BenchmarkDotNet's GitHub markdown and CSV reports of one invocation to <c>bench/results</c>, each
/// markdown report stamped with the commit, date, CPU, cores, runtime, OS and command (see
/// <see cref="WebSocketCodec.Bench.ResultsStamp"/>; the CSV is covered by the markdown report beside it). Only reports
/// written by this invocation are copied, so an earlier run's stay as they were measured.</summary>
public static class ReportCopy
{
    /// <summary>Copies the reports under <paramref name="root"/>'s artifacts written since <paramref name="startedUtc"/>,
    /// their names without <paramref name="namespacePrefix"/>.</summary>
    public static void Run(string root, string namespacePrefix, DateTime startedUtc, string command, Func<string, bool>? include = null)
    {
        string source = Path.Combine(BenchmarkConfigs.ArtifactsPath(root), "results");
        string target = Path.Combine(root, "bench", "results");
        if (!Directory.Exists(source))
        {
            return;
        }

        Directory.CreateDirectory(target);
        var stamp = WebSocketCodec.Bench.ResultsStamp.Current(command);
        foreach (string file in Directory.EnumerateFiles(source))
        {
            bool markdown = file.EndsWith("-report-github.md", StringComparison.Ordinal);
            if (!(markdown || file.EndsWith("-report.csv", StringComparison.Ordinal)) || File.GetLastWriteTimeUtc(file) < startedUtc || !(include?.Invoke(file) ?? true))
            {
                continue;
            }

            string name = Path.GetFileName(file).Replace(namespacePrefix, "", StringComparison.Ordinal);
            string destination = Path.Combine(target, name);
            if (markdown)
            {
                File.WriteAllText(destination, stamp.StampPage(File.ReadAllText(file)));
            }
            else
            {
                File.Copy(file, destination, overwrite: true);
            }

            Console.WriteLine($"report: bench/results/{name}");
        }
    }
}
