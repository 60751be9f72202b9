using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;

namespace WebSocketCodec.Broadcast.Cluster;

/// <summary>
/// Bytes the nodes sent each other so far: the kernel's count of bytes sent (<c>ss -tinp</c>'s <c>bytes_sent</c>, TCP
/// payload: the remoting associations' websocket frames) summed over every established TCP connection whose two ends
/// belong to node processes. Connections that closed meanwhile drop out of the sum, so a run compares two snapshots of
/// the same, steady associations.
/// </summary>
internal static partial class InterNodeBytes
{
    public static long Now(IEnumerable<int> nodePids)
    {
        var pids = new HashSet<int>(nodePids);
        var start = new ProcessStartInfo("ss", "-tinpH state established") { RedirectStandardOutput = true };
        using Process ss = Process.Start(start)!;
        string output = ss.StandardOutput.ReadToEnd();
        ss.WaitForExit();

        // Each socket is a line of addresses and users, then an indented line of TCP info.
        var sockets = new List<(string Local, string Peer, int Pid, long Sent)>();
        string[] lines = output.Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            Match head = Head().Match(lines[i]);
            if (!head.Success)
            {
                continue;
            }

            int pid = Pid().Match(lines[i]) is { Success: true } p ? int.Parse(p.Groups[1].Value, CultureInfo.InvariantCulture) : -1;
            string info = i + 1 < lines.Length ? lines[i + 1] : "";
            long sent = Sent().Match(info) is { Success: true } s ? long.Parse(s.Groups[1].Value, CultureInfo.InvariantCulture) : 0;
            sockets.Add((Normal(head.Groups[1].Value), Normal(head.Groups[2].Value), pid, sent));
        }

        var owner = sockets.Where(s => s.Pid >= 0).GroupBy(s => s.Local).ToDictionary(g => g.Key, g => g.First().Pid);
        return sockets
            .Where(s => pids.Contains(s.Pid) && owner.TryGetValue(s.Peer, out int peer) && pids.Contains(peer))
            .Sum(s => s.Sent);
    }

    /// <summary>An IPv4-mapped IPv6 end (<c>[::ffff:127.0.0.1]:8081</c>, a dual-mode socket's) as its IPv4 form.</summary>
    private static string Normal(string end) => end.StartsWith("[::ffff:", StringComparison.Ordinal)
        ? end[8..].Replace("]", "", StringComparison.Ordinal)
        : end;

    [GeneratedRegex(@"^\s*\d+\s+\d+\s+(\S+)\s+(\S+)")]
    private static partial Regex Head();

    [GeneratedRegex(@"pid=(\d+)")]
    private static partial Regex Pid();

    [GeneratedRegex(@"bytes_sent:(\d+)")]
    private static partial Regex Sent();
}
