using System.Diagnostics;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// Runtime settings for the processes the tool starts, the same for every variant, so each measures its steady-state
/// code. The runtime starts counting calls for tier-up only after 100 ms without new methods being compiled; on a
/// single busy core that quiet moment keeps slipping, and the hot loops ran unoptimized or instrumented code for 10 s
/// and more (measured: ours at 0.55× raw after 2 s of warm-up, 0.83× after 15 s, the same after 3 s with counting at
/// once). Counting from the first call lets a few seconds of warm-up reach the optimized code.
/// </summary>
internal static class SteadyState
{
    public static void Apply(ProcessStartInfo start)
    {
        start.Environment["DOTNET_TC_CallCountingDelayMs"] = "0";
    }
}
