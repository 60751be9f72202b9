using System.Globalization;
using SharpFuzz;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The coverage-guided mode (<c>--afl</c>, driven by <c>afl/run.sh</c>): SharpFuzz's fork server hands each input from
/// afl-fuzz to a target through <see cref="AflInput"/>, and a failed oracle or an undocumented exception escapes as an
/// exception, which SharpFuzz reports to afl-fuzz as a crash. Coverage comes from the library assemblies the script
/// instruments with the sharpfuzz tool; this assembly is not instrumented, so the oracles add no edges.
/// </summary>
public static class AflHarness
{
    /// <summary>Serves inputs for <paramref name="targetName"/> until afl-fuzz stops (once, outside afl-fuzz, with the
    /// input on standard input).</summary>
    public static void Run(string targetName)
    {
        IFuzzTarget target = FuzzTargets.Create(targetName);
        var runner = new FuzzRunner(0);
        Fuzzer.Run(stream =>
        {
            using var buffer = new MemoryStream();
            stream.CopyTo(buffer);
            byte[] input = buffer.ToArray();
            if (AflInput.Check(runner, target, input) is { } violation)
            {
                throw new OracleFailureException(violation.ToString());
            }
        });
    }

    /// <summary>Writes the seed corpus of <paramref name="targetName"/> to <paramref name="directory"/>, one file per
    /// distinct input (the AFL input directory when no AFL corpus is committed yet); the number of files.</summary>
    public static int DumpSeeds(string targetName, DirectoryInfo directory)
    {
        ArgumentNullException.ThrowIfNull(directory);
        IFuzzTarget target = FuzzTargets.Create(targetName);
        directory.Create();
        var seen = new HashSet<ulong>();
        int written = 0;
        foreach (CorpusEntry entry in target.Mutator.Corpus)
        {
            if (!seen.Add(AflInput.Hash(entry.Bytes)))
            {
                continue;
            }

            string name = string.Concat(entry.Name.Select(c => char.IsAsciiLetterOrDigit(c) || c is '-' or '_' ? c : '_'));
            File.WriteAllBytes(Path.Combine(directory.FullName, string.Create(CultureInfo.InvariantCulture, $"{written:D4}-{name}")), entry.Bytes);
            written++;
        }

        return written;
    }
}
