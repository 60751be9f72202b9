using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The demo server's command line refuses a bad number of seconds with a usage error, before it starts.</summary>
public sealed class EchoServerCommandLineTests
{
    [Theory]
    [InlineData("--keepalive", "-1")]
    [InlineData("--idle-timeout", "-0.5")]
    [InlineData("--idle-timeout", "abc")]
    [InlineData("--keepalive", "NaN")]
    public async Task ABadNumberOfSecondsIsAUsageError(string option, string value)
    {
        (int exitCode, string output, string error) = await SampleProcess.RunToExitAsync(
            typeof(EchoServerHost).Assembly, option, value, "--host", "127.0.0.1", "--port", "0");

        string printed = error + output;
        Assert.Equal(1, exitCode);
        Assert.Contains($"{option} takes 0 to 86400 seconds, not '{value}'.", printed, StringComparison.Ordinal);
        Assert.DoesNotContain("listening on", printed, StringComparison.Ordinal);
    }
}
