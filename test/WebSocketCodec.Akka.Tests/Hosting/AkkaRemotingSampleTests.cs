using WebSocketCodec.Samples.WebSocketProxy;

namespace WebSocketCodec.Akka.Tests.Hosting;

/// <summary><c>samples/AkkaRemoting</c> as two processes: the server prints where it listens, the client asks it
/// <c>--count</c> times, prints every answer and exits 0; directly (ws, and wss with HTTP/2) and through
/// <c>samples/WebSocketProxy</c>. The server stops cleanly on SIGTERM.</summary>
public sealed class AkkaRemotingSampleTests
{
    [SkippableTheory]
    [InlineData("")]
    [InlineData("--tls --http2")]
    public async Task The_client_process_prints_every_answer_of_the_server_process(string transport)
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1).");
        string[] options = transport.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        using SampleNodeProcess server = SampleNodeProcess.Start(["--role", "server", "--port", "0", .. options]);
        string address = await server.ListeningAddressAsync();
        Assert.Matches(options.Contains("--tls") ? @"^akka\.wss://server@127\.0\.0\.1:\d+$" : @"^akka\.ws://server@127\.0\.0\.1:\d+$", address);

        await AssertClientGetsAnswersAsync(["--server-address", address, .. options]);

        (int exitCode, string rest) = await server.TerminateAsync();
        Assert.Equal(0, exitCode);
        Assert.Equal("stopped", rest.Trim());
    }

    [SkippableFact]
    public async Task The_client_process_reaches_the_server_process_through_the_websocket_proxy()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "SIGTERM is sent with kill(1).");
        int serverPort = FreePorts.Next();
        await using WebSocketProxyHost proxy = await WebSocketProxyHost.StartAsync(
            new WebSocketProxyOptions { Port = 0, Backend = new Uri($"ws://127.0.0.1:{serverPort}") });
        int proxyPort = proxy.BaseUrl.Port;
        using SampleNodeProcess server = SampleNodeProcess.Start(
            "--role", "server", "--port", $"{serverPort}", "--public-host", "127.0.0.1", "--public-port", $"{proxyPort}");
        string address = await server.ListeningAddressAsync();
        Assert.Equal($"akka.ws://server@127.0.0.1:{proxyPort}", address); // what clients use: the proxy's address

        await AssertClientGetsAnswersAsync(["--server-address", address]);

        Assert.Equal(0, (await server.TerminateAsync()).ExitCode);
    }

    private static async Task AssertClientGetsAnswersAsync(string[] options)
    {
        (int exitCode, string output, string error) = await SampleNodeProcess.RunToExitAsync(["--role", "client", "--count", "3", .. options]);

        Assert.True(exitCode == 0, $"exit code {exitCode}: {error}{output}");
        string[] replies = [.. output.Split('\n', StringSplitOptions.TrimEntries).Where(line => line.StartsWith("reply ", StringComparison.Ordinal))];
        Assert.Equal(["reply 1: server got 'hello 1'", "reply 2: server got 'hello 2'", "reply 3: server got 'hello 3'"], replies);
    }
}
