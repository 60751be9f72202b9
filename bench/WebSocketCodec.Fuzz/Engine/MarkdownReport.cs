using System.Globalization;
using System.Text;

namespace WebSocketCodec.Fuzz;

/// <summary>Renders a run as markdown: the command, seed and machine, a table per target, the violations by kind with
/// their first inputs, and what the inputs reached.</summary>
public static class MarkdownReport
{
    /// <summary>The report of <paramref name="results"/>.</summary>
    public static string Render(IReadOnlyList<TargetResult> results, ulong seed, string command)
    {
        ArgumentNullException.ThrowIfNull(results);
        var md = new StringBuilder();
        var inv = CultureInfo.InvariantCulture;
        md.AppendLine("# Fuzz run").AppendLine();
        md.Append(WebSocketCodec.Bench.ResultsStamp.Current(command).ToMarkdown());
        md.AppendLine(inv, $"Seed: {seed}.").AppendLine();
        md.AppendLine("| target | inputs | seconds | inputs/s | violations |").AppendLine("|---|---:|---:|---:|---:|");
        foreach (TargetResult r in results)
        {
            md.AppendLine(inv, $"| {r.Target} | {r.Inputs:N0} | {r.Elapsed.TotalSeconds:F1} | {r.InputsPerSecond:N0} | {r.ViolationCount:N0} |");
        }

        long inputs = results.Sum(r => r.Inputs);
        double seconds = results.Sum(r => r.Elapsed.TotalSeconds);
        md.AppendLine(inv, $"| **all** | {inputs:N0} | {seconds:F1} | {(seconds > 0 ? inputs / seconds : 0):N0} | {results.Sum(r => r.ViolationCount):N0} |").AppendLine();
        foreach (TargetResult r in results)
        {
            md.AppendLine(inv, $"## {r.Target}").AppendLine();
            if (r.Kinds.Count > 0)
            {
                md.AppendLine("Violations by kind:").AppendLine();
                foreach ((string kind, long count) in r.Kinds.OrderByDescending(k => k.Value))
                {
                    FuzzViolation first = r.Violations.First(v => v.Signature == kind);
                    md.AppendLine(inv, $"- {count:N0} x `{first.Message}` (first: index {first.Index}, entry {first.Entry}, input `{(first.Hex.Length <= 200 ? first.Hex : first.Hex[..200] + "...")}`)");
                }

                md.AppendLine();
            }

            md.AppendLine("What the inputs reached:").AppendLine();
            foreach ((string outcome, long count) in r.Outcomes.OrderByDescending(o => o.Value))
            {
                md.AppendLine(inv, $"- {outcome}: {count:N0}");
            }

            md.AppendLine();
        }

        return md.ToString();
    }
}
