using System.Diagnostics;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Broadcast.Server;

/// <summary>This process's CPU time, user and total (user + system), every thread. On Linux from <c>getrusage</c>
/// (microseconds, where <see cref="Process.TotalProcessorTime"/> reads /proc in 10 ms clock ticks), without
/// allocating; elsewhere from <see cref="Process"/>.</summary>
internal static partial class ProcessCpu
{
    private const int RusageSelf = 0;

    public static (TimeSpan Total, TimeSpan User) Now()
    {
        if (OperatingSystem.IsLinux() && GetRusage(RusageSelf, out RUsage usage) == 0)
        {
            TimeSpan user = usage.User.ToTimeSpan();
            return (user + usage.System.ToTimeSpan(), user);
        }

        using var process = Process.GetCurrentProcess();
        return (process.TotalProcessorTime, process.UserProcessorTime);
    }

    [LibraryImport("libc", EntryPoint = "getrusage", SetLastError = true)]
    private static partial int GetRusage(int who, out RUsage usage);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeVal
    {
        public long Seconds;
        public long Microseconds;

        public readonly TimeSpan ToTimeSpan() => TimeSpan.FromTicks((Seconds * TimeSpan.TicksPerSecond) + (Microseconds * 10));
    }

    /// <summary>struct rusage (64-bit Linux): two timevals and 14 longs.</summary>
    [StructLayout(LayoutKind.Sequential)]
    private struct RUsage
    {
        public TimeVal User;
        public TimeVal System;
        private unsafe fixed long _rest[14];
    }
}
