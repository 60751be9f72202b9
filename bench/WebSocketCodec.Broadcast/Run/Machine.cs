using System.Globalization;

namespace WebSocketCodec.Broadcast.Run;

/// <summary>What a results page names about where it was measured, in one line (the page's stamp, see
/// <see cref="WebSocketCodec.Bench.ResultsStamp"/>, carries the same fields in its fixed form).</summary>
internal static class Machine
{
    /// <summary>One line: date (UTC), commit, CPU, cores, OS, runtime.</summary>
    public static string Describe()
    {
        var stamp = WebSocketCodec.Bench.ResultsStamp.Current("");
        return string.Create(CultureInfo.InvariantCulture, $"{stamp.Date}, commit {stamp.Commit}, {stamp.Cpu}, {stamp.Cores} cores, {stamp.Os}, {stamp.Runtime}");
    }
}
