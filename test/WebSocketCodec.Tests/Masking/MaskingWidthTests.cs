using System.Diagnostics;
using System.Runtime.Intrinsics;
using System.Text.RegularExpressions;

namespace WebSocketCodec.Tests.Masking;

/// <summary>
/// <see cref="WebSocketMask"/> has a loop per vector width, and a process runs only its machine's widest: the others are
/// checked in child processes (WebSocketCodec.MaskingProbe, copied beside the tests) with the wider instruction sets
/// turned off by the runtime's switches. Each child reports its widths, which must show the wider ones off and, when
/// this machine has it, the width under test on, and checks every length and offset against RFC 6455 §5.3 byte by byte.
/// </summary>
public sealed partial class MaskingWidthTests
{
    [Theory]
    [InlineData(null, 512)] // the machine's widest, in a process of its own like the others
    [InlineData("DOTNET_EnableAVX512", 256)] // .NET 10: DOTNET_EnableAVX512F no longer turns Vector512 off
    [InlineData("DOTNET_EnableAVX2", 128)]
    [InlineData("DOTNET_EnableHWIntrinsic", 0)] // the scalar 8-, 4- and 1-byte steps alone
    public async Task EveryWidthMatchesTheReference(string? switchedOff, int width)
    {
        string probe = Path.Combine(AppContext.BaseDirectory, "masking-probe", "WebSocketCodec.MaskingProbe.dll");
        Assert.True(File.Exists(probe), $"{probe} is missing: the test project copies the probe's output at build");
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            ArgumentList = { probe },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        if (switchedOff is not null)
        {
            start.Environment[switchedOff] = "0";
        }

        using var process = Process.Start(start)!;
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using CancellationTokenRegistration kill = bound.Token.Register(() => process.Kill(entireProcessTree: true));
        Task<string> error = process.StandardError.ReadToEndAsync(CancellationToken.None);
        string output = await process.StandardOutput.ReadToEndAsync(CancellationToken.None);
        await process.WaitForExitAsync(CancellationToken.None);
        Assert.False(bound.IsCancellationRequested, $"the probe did not finish within 60 s: {output}");
        string report = $"{switchedOff ?? "no switch"}: exit {process.ExitCode}\n{output}{await error}";

        Match widths = Widths().Match(output);
        Assert.True(widths.Success, report);
        bool v512 = bool.Parse(widths.Groups[1].Value), v256 = bool.Parse(widths.Groups[2].Value), v128 = bool.Parse(widths.Groups[3].Value);
        // The wider sets are really off...
        Assert.True(width >= 512 || !v512, report);
        Assert.True(width >= 256 || !v256, report);
        Assert.True(width >= 128 || !v128, report);
        // ...and the width under test is on wherever this machine has it (so that its loop is the one that ran).
        bool machineHas = width switch
        {
            512 => Vector512.IsHardwareAccelerated,
            256 => Vector256.IsHardwareAccelerated,
            128 => Vector128.IsHardwareAccelerated,
            _ => true,
        };
        bool childHas = width switch { 512 => v512, 256 => v256, 128 => v128, _ => true };
        Assert.True(!machineHas || childHas, report);

        Assert.Equal(0, process.ExitCode);
        Assert.Matches(@"matched \d+ cases", output);
    }

    [GeneratedRegex(@"widths 512=(\w+) 256=(\w+) 128=(\w+)")]
    private static partial Regex Widths();
}
