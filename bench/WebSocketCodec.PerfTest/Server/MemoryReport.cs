using System.Globalization;
using System.Runtime;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// The server's memory after a forced, blocking, compacting full collection (the large object heap compacted too,
/// finalizers run, then collected again): resident set size, the managed heap, and the GC mode. Answers the server's
/// <c>memory</c> command with one line: <c>memory rss=B heap=B committed=B gc=server|workstation concurrent=bool heaps=N jit=M</c>, where <c>M</c> counts the
/// methods the JIT compiled so far (tier-ups included).
/// </summary>
internal static class MemoryReport
{
    public static string Measure()
    {
        Collect();
        GC.WaitForPendingFinalizers();
        Collect();
        GCMemoryInfo info = GC.GetGCMemoryInfo(GCKind.Any);
        long heaps = GC.GetConfigurationVariables().TryGetValue("HeapCount", out object? count) ? Convert.ToInt64(count, CultureInfo.InvariantCulture) : 1;
        return string.Create(CultureInfo.InvariantCulture,
            $"memory rss={ResidentBytes()} heap={GC.GetTotalMemory(forceFullCollection: false)} committed={info.TotalCommittedBytes} gc={(GCSettings.IsServerGC ? "server" : "workstation")} concurrent={GCSettings.LatencyMode != GCLatencyMode.Batch} heaps={heaps} jit={System.Runtime.JitInfo.GetCompiledMethodCount()}");
    }

    private static void Collect()
    {
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(2, GCCollectionMode.Forced, blocking: true, compacting: true);
    }

    /// <summary>VmRSS from /proc/self/status on Linux, else the working set.</summary>
    private static long ResidentBytes()
    {
        if (OperatingSystem.IsLinux())
        {
            foreach (string line in File.ReadLines("/proc/self/status"))
            {
                if (line.StartsWith("VmRSS:", StringComparison.Ordinal))
                {
                    return long.Parse(line.AsSpan(6).Trim().TrimEnd("kB").Trim(), CultureInfo.InvariantCulture) * 1024;
                }
            }
        }

        using var self = System.Diagnostics.Process.GetCurrentProcess();
        self.Refresh();
        return self.WorkingSet64;
    }
}
