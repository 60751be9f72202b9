using System.Diagnostics;
using System.Net.WebSockets;
using WebSocketCodec.Samples.EchoServer;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>The demo server's command line: a bad number of seconds is a usage error, before it starts; <c>--transport
/// lean</c> prints where it listens, echoes, and stops on SIGTERM; a combination it cannot serve is refused.</summary>
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

    [SkippableTheory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task OnTheLeanTransportItPrintsWhereItListensEchoesAndStopsOnSigterm(bool tls)
    {
        Skip.IfNot(OperatingSystem.IsLinux(), "The lean transport runs on Linux.");
        string[] arguments = ["--transport", "lean", "--host", "127.0.0.1", "--port", "0", .. tls ? new[] { "--tls" } : []];
        using Process process = SampleProcess.Start(typeof(EchoServerHost).Assembly, arguments);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        try
        {
            string? line = await process.StandardOutput.ReadLineAsync(timeout.Token);
            Assert.NotNull(line);
            Assert.Matches(tls ? @"^listening on wss://127\.0\.0\.1:\d+/echo$" : @"^listening on ws://127\.0\.0\.1:\d+/echo$", line);

            using var client = new ClientWebSocket();
            client.Options.RemoteCertificateValidationCallback = (_, certificate, _, _) => certificate?.Subject == "CN=localhost";
            await client.ConnectAsync(new Uri(line["listening on ".Length..]), timeout.Token);
            await client.SendAsync("hello"u8.ToArray(), WebSocketMessageType.Text, true, timeout.Token);
            byte[] buffer = new byte[16];
            ValueWebSocketReceiveResult echo = await client.ReceiveAsync(buffer.AsMemory(), timeout.Token);
            Assert.Equal("hello", System.Text.Encoding.UTF8.GetString(buffer, 0, echo.Count));

            using (Process kill = Process.Start("kill", ["-TERM", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
            {
                await kill.WaitForExitAsync(timeout.Token);
            }

            // The server closes its websockets with 1001 as it stops.
            ValueWebSocketReceiveResult end = await client.ReceiveAsync(buffer.AsMemory(), timeout.Token);
            Assert.Equal(WebSocketMessageType.Close, end.MessageType);
            Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, client.CloseStatus);
            await client.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, timeout.Token);
            await process.WaitForExitAsync(timeout.Token);
            Assert.Equal(0, process.ExitCode);
            Assert.Equal("stopped", (await process.StandardOutput.ReadToEndAsync(timeout.Token)).Trim());
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill(); // the test fails above
            }
        }
    }

    [Fact]
    public async Task TheBuiltinCodecOnTheLeanTransportIsRefused()
    {
        (int exitCode, string output, string error) = await SampleProcess.RunToExitAsync(
            typeof(EchoServerHost).Assembly, "--transport", "lean", "--codec", "builtin", "--port", "0");

        Assert.Equal(1, exitCode);
        Assert.Contains("cannot start: --transport lean serves our codec only", error, StringComparison.Ordinal);
        Assert.DoesNotContain("listening on", output, StringComparison.Ordinal);
    }
}
