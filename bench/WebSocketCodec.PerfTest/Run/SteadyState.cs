using System.Diagnostics;

namespace WebSocketCodec.PerfTest;

/// <summary>
/// Runtime settings for the processes the tool starts, the same for every variant, so each measures its steady-state
/// code. The runtime starts counting calls for tier-up only after 100 ms without new methods being compiled; on a
/// single busy core that quiet moment keeps slipping, and the hot loops ran unoptimized or instrumented code long
/// after the warm-up. Counting from the first call lets a few seconds of warm-up reach the optimized code.
/// </summary>
internal static class SteadyState
{
    public static void Apply(ProcessStartInfo start)
    {
        start.Environment["DOTNET_TC_CallCountingDelayMs"] = "0";
    }
}
