using WebSocketCodec.Testing;
using WebSocketCodec.Samples.ChatClient;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>
/// <c>samples/ChatClient</c> as processes against <c>samples/Chat</c> as a process, as people would run them: lines
/// typed in one client arrive in the other as <c>nick: text</c>, a burst in order; when the server stops and starts
/// again on its port, both clients say so (<c># disconnected</c>, <c># reconnecting in</c>, <c># connected</c>) and a
/// line typed meanwhile (<c># queued</c>) goes out after the restart; a path the server refuses (404) stops the client
/// with exit code 1; the end of input or Ctrl+C closes with 1000 and exit code 0; <c>HTTP_PROXY</c> (and
/// <c>--proxy</c>, over HTTP/2 and TLS) takes the websocket through an HTTP CONNECT proxy.
/// </summary>
public sealed class ChatClientSampleTests
{
    /// <summary>How long a start, a line or a reconnect is given on a loaded 2-core machine.</summary>
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(60);

    /// <summary>The clients connect directly unless a test gives them a proxy: none from the tests' own environment.</summary>
    private static readonly Dictionary<string, string?> NoProxy = new()
    {
        ["HTTP_PROXY"] = null, ["http_proxy"] = null, ["HTTPS_PROXY"] = null, ["https_proxy"] = null,
        ["ALL_PROXY"] = null, ["all_proxy"] = null, ["NO_PROXY"] = null, ["no_proxy"] = null,
    };

    [Fact]
    public async Task LinesTypedInOneClientArriveInTheOtherAsNickAndTextABurstInOrder()
    {
        using ChatServerProcess server = await ChatServerProcess.StartAsync(FreePorts.Next(), Bound);
        using ConsoleSampleProcess ann = StartClient("ann", server.RoomUrl("lobby"));
        using ConsoleSampleProcess bob = StartClient("bob", server.RoomUrl("lobby"));
        await JoinedAsync(server, "lobby", ann, bob);

        const string tricky = "say \"hi\" \\ <b>é</b> {\"nick\":\"eve\",\"text\":\"x\"}"; // JSON-encoded, not pasted in
        await bob.WriteLineAsync(tricky);
        await ann.WaitForLineAsync(line => line == "bob: " + tricky, Bound);

        int mark = bob.LineCount;
        for (int i = 1; i <= 50; i++)
        {
            await ann.WriteLineAsync($"burst {i}");
        }

        await bob.WaitForLineAsync(line => line == "ann: burst 50", Bound, mark);
        Assert.Equal(
            Enumerable.Range(1, 50).Select(i => $"ann: burst {i}"),
            bob.Lines.Skip(mark).Where(line => line.StartsWith("ann: burst ", StringComparison.Ordinal)));
        Assert.DoesNotContain(ann.Lines, line => line == ConnectionLines.Queued); // connected all along
    }

    [SkippableFact]
    public async Task WhenTheServerRestartsOnItsPortBothReconnectAndALineTypedMeanwhileGoesOutAfter()
    {
        Skip.IfNot(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS(), "The server is stopped with SIGTERM (kill(1)).");
        int port = FreePorts.Next();
        ChatServerProcess server = await ChatServerProcess.StartAsync(port, Bound);
        try
        {
            using ConsoleSampleProcess ann = StartClient("ann", server.RoomUrl("lobby"));
            using ConsoleSampleProcess bob = StartClient("bob", server.RoomUrl("lobby"));
            await JoinedAsync(server, "lobby", ann, bob);
            int annMark = ann.LineCount, bobMark = bob.LineCount;

            await server.StopAsync(Bound); // its websockets get Close 1001 (going away): the clients try again
            server.Dispose();
            foreach (ConsoleSampleProcess client in new[] { ann, bob })
            {
                int since = client == ann ? annMark : bobMark;
                (string disconnected, _) = await client.WaitForLineAtAsync(line => line.StartsWith("# disconnected ", StringComparison.Ordinal), Bound, since);
                Assert.StartsWith("# disconnected 1001", disconnected, StringComparison.Ordinal);
                await client.WaitForLineAsync(line => line.StartsWith("# reconnecting in ", StringComparison.Ordinal), Bound, since);
            }

            // After a refused attempt, so the output the clients guide shows has its order (attempts, then "# queued").
            await ann.WaitForLineAsync(line => line.Contains("(attempt 2: ", StringComparison.Ordinal), Bound, annMark);
            await ann.WriteLineAsync("typed while the server was down");
            (_, int queued) = await ann.WaitForLineAtAsync(line => line == ConnectionLines.Queued, Bound, annMark);

            server = await ChatServerProcess.StartAsync(port, Bound);
            await ann.WaitForLineAsync(line => line == ConnectionLines.Connected, Bound, annMark);
            await bob.WaitForLineAsync(line => line == ConnectionLines.Connected, Bound, bobMark);
            // Relayed to its sender too: the server that took it is the new one (the old one was gone when it was typed).
            (_, int echoed) = await ann.WaitForLineAtAsync(line => line == "ann: typed while the server was down", Bound, annMark);
            Assert.True(queued < echoed);

            await server.WaitForMembersAsync("lobby", 2, Bound);
            await ann.WriteLineAsync("after the restart");
            (_, int after) = await bob.WaitForLineAtAsync(line => line == "ann: after the restart", Bound, bobMark);
            // Bob gets the queued line too if he was back before ann sent it; if so, before the next one.
            int early = bob.Lines.ToList().FindIndex(bobMark, line => line == "ann: typed while the server was down");
            Assert.True(early < after);
            Assert.DoesNotContain(ann.Lines.Concat(bob.Lines), line => line.StartsWith("# stopped", StringComparison.Ordinal));

            // What the clients guide shows is what ann printed here, to the end of her input (Close 1000, exit 0).
            ann.CloseInput();
            Assert.True(await ann.WaitForExitAsync(Bound), ann.Output);
            string? mismatch = DocBlocks.OutputMismatch("clients-chat-console", ann.Lines);
            Assert.True(mismatch is null, mismatch);
        }
        finally
        {
            server.Dispose();
        }
    }

    [Fact]
    public async Task APathTheServerRefusesStopsTheClientWithExitCode1()
    {
        using ChatServerProcess server = await ChatServerProcess.StartAsync(FreePorts.Next(), Bound);
        using ConsoleSampleProcess ann = StartClient("ann", $"ws://127.0.0.1:{server.Port}/nothing/here");

        Assert.True(await ann.WaitForExitAsync(Bound), ann.Output);
        int exitCode = ann.ExitCode; // its input still open: it does not wait for it

        Assert.True(exitCode == 1, ann.Output);
        Assert.StartsWith("# stopped not reconnectable: ", ann.Lines[^1], StringComparison.Ordinal);
        Assert.Contains("404", ann.Lines[^1], StringComparison.Ordinal);
        Assert.DoesNotContain(ann.Lines, line => line.StartsWith("# reconnecting", StringComparison.Ordinal) || line == ConnectionLines.Connected);
    }

    [SkippableTheory]
    [InlineData("end of input")]
    [InlineData("SIGINT")]
    public async Task EndOfInputOrCtrlCClosesWith1000AndExitCode0(string end)
    {
        Skip.If(end == "SIGINT" && !(OperatingSystem.IsLinux() || OperatingSystem.IsMacOS()), "SIGINT is sent with kill(1).");
        Skip.If(end == "SIGINT" && SigIntIgnoredHere(),
            "SIGINT is ignored in this process (started in the background by a non-interactive shell), and the client inherits that: the runtime then leaves it ignored, as nohup asks.");
        using ChatServerProcess server = await ChatServerProcess.StartAsync(FreePorts.Next(), Bound);
        using ConsoleSampleProcess ann = StartClient("ann", server.RoomUrl("lobby"));
        using ConsoleSampleProcess bob = StartClient("bob", server.RoomUrl("lobby"));
        await JoinedAsync(server, "lobby", ann, bob);

        await ann.WriteLineAsync("last words");
        if (end == "SIGINT")
        {
            await bob.WaitForLineAsync(line => line == "ann: last words", Bound); // a signal does not wait for the line
            ann.Signal("INT");
        }
        else
        {
            ann.CloseInput();
        }

        Assert.True(await ann.WaitForExitAsync(Bound), ann.Output);
        int exitCode = ann.ExitCode;

        Assert.True(exitCode == 0, ann.Output);
        Assert.Equal("# stopped closed (1000)", ann.Lines[^1]); // the server answered our Close 1000
        await bob.WaitForLineAsync(line => line == "ann: last words", Bound); // sent before the Close
        await server.WaitForMembersAsync("lobby", 1, Bound); // the server saw ann's websocket end
    }

    [Theory]
    [InlineData(false, false)] // HTTP_PROXY, ws:// over HTTP/1.1
    [InlineData(true, true)] // --proxy, wss:// (--insecure) over HTTP/2
    public async Task TheWebSocketGoesThroughTheHttpProxyOfTheEnvironmentOrTheOption(bool proxyOption, bool http2OverTls)
    {
        using ChatServerProcess server = await ChatServerProcess.StartAsync(FreePorts.Next(), Bound, tls: http2OverTls);
        using var proxy = new ConnectProxy();
        string proxyUrl = $"http://127.0.0.1:{proxy.Port}";
        var environment = new Dictionary<string, string?>(NoProxy);
        List<string> options = http2OverTls ? ["--http2", "--insecure"] : [];
        if (proxyOption)
        {
            options.AddRange(["--proxy", proxyUrl]);
        }
        else
        {
            environment["HTTP_PROXY"] = proxyUrl; // as curl and HttpClient read it
        }

        using ConsoleSampleProcess ann = StartClient("ann", server.RoomUrl("proxied"), environment, [.. options]);
        using ConsoleSampleProcess bob = StartClient("bob", server.RoomUrl("proxied"), NoProxy, http2OverTls ? ["--insecure"] : []); // directly
        await JoinedAsync(server, "proxied", ann, bob);

        await ann.WriteLineAsync("through the proxy");
        await bob.WaitForLineAsync(line => line == "ann: through the proxy", Bound);
        await bob.WriteLineAsync("back through it");
        await ann.WaitForLineAsync(line => line == "bob: back through it", Bound);

        Assert.Equal(1, proxy.Tunnels);
        Assert.StartsWith($"CONNECT 127.0.0.1:{server.Port} HTTP/1.1", proxy.Heads.Single(), StringComparison.Ordinal);
    }

    private static ConsoleSampleProcess StartClient(
        string nick, string url, IReadOnlyDictionary<string, string?>? environment = null, string[]? options = null) =>
        ConsoleSampleProcess.Start(nick, typeof(ChatConsole).Assembly, environment ?? NoProxy, ["--url", url, "--nick", nick, .. options ?? []]);

    /// <summary>Waits until every client printed <c># connected</c> and the server counts them all in the room (a text
    /// relayed before a member joined is not for it).</summary>
    private static async Task JoinedAsync(ChatServerProcess server, string room, params ConsoleSampleProcess[] clients)
    {
        foreach (ConsoleSampleProcess client in clients)
        {
            await client.WaitForLineAsync(line => line == ConnectionLines.Connected, Bound);
        }

        await server.WaitForMembersAsync(room, clients.Length, Bound);
    }

    /// <summary>Whether this process was started with SIGINT ignored (Linux: bit 2 of <c>SigIgn</c> in /proc/self/status),
    /// which every process it starts inherits.</summary>
    private static bool SigIntIgnoredHere()
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }

        string? line = File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal));
        return line is not null && (ulong.Parse(line.AsSpan(7).Trim(), System.Globalization.NumberStyles.HexNumber, System.Globalization.CultureInfo.InvariantCulture) & 0x2) != 0;
    }
}
