using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.AspNetCore.Builder;
using WebSocketCodec.AspNetCore;
using WebSocketCodec.Pipelines;
using WebSocketCodec.Samples.EchoServer;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>
/// Memory follows the bytes received, never the lengths announced. The demo server runs in a child process whose GC
/// heap is capped at 256 MiB (<c>DOTNET_GCHeapHardLimit</c>, as a container of ~340 MiB gets). A hundred websockets
/// each announce a 16 MiB frame (the limit, so allowed) and send 1000 bytes of it; one sends 3 MiB of its 16 MiB and
/// stalls. Renting the announced lengths would need 1.6 GiB: before the gathering in pooled segments, 85 of the 100 got
/// a Close (out of memory inside the server) and a well-behaved websocket could no longer echo a 1 MiB message. Now
/// none of them hears a thing and the well-behaved websocket echoes 1 MiB messages throughout.
/// </summary>
public sealed partial class HeapLimitedServerTests(ITestOutputHelper output)
{
    private const int Hostile = 100;

    [Fact]
    public async Task AnnouncedLengthsTakeNoMemoryAndOthersAreStillServed()
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(90));
        using Process server = StartServer();
        try
        {
            Uri url = await ListeningUrlAsync(server, bound.Token);
            var endPoint = new IPEndPoint(IPAddress.Loopback, url.Port);
            await using RawWebSocket good = await RawWebSocket.OpenAsync(new Uri($"ws://127.0.0.1:{url.Port}/echo"));
            byte[] mebibyte = new byte[1 << 20];
            new Random(1).NextBytes(mebibyte);
            await AssertEchoAsync(good, mebibyte);
            long before = ResidentBytes(server);

            var sockets = new List<Socket>();
            try
            {
                await OpenHostileAsync(endPoint, sockets, () => AssertEchoAsync(good, mebibyte), bound.Token);
                for (int i = 0; i < 5; i++)
                {
                    await AssertEchoAsync(good, mebibyte);
                }

                long after = ResidentBytes(server);
                output.WriteLine(
                    $"server RSS {before >> 20} MiB before the hostile websockets, {after >> 20} MiB with them: {(after - before) / (Hostile + 1) / 1024} KiB each " +
                    $"(they sent {Hostile} x 1014 B and 3 MiB)");

                // Not one hostile websocket was closed (by an out-of-memory failure or anything else): none hears a thing.
                Assert.False(server.HasExited, "the server died");
                Assert.All(sockets, socket => Assert.False(socket.Poll(0, SelectMode.SelectRead), "a hostile websocket got bytes or its connection closed"));
            }
            finally
            {
                sockets.ForEach(socket => socket.Dispose());
            }

            await good.SendAsync(WireFrames.ClientClose(1000));
            Assert.Equal(1000, (await good.ReadUntilCloseAsync(answer: false)).Status);
        }
        finally
        {
            if (!server.HasExited)
            {
                server.Kill();
            }

            await server.WaitForExitAsync(CancellationToken.None);
        }
    }

    /// <summary>In process, with a counting pool under the websockets: what the hostile websockets hold is what they
    /// sent, in segments that start at 4 KiB and double up to 64 KiB (at most 4 KiB for 1000 bytes; bytes received +
    /// 64 KiB for 3 MiB).</summary>
    [Fact]
    public async Task WhatTheHostileWebSocketsHoldFollowsTheBytesTheySent()
    {
        var pool = new CountingPool();
        WebApplication app = SampleHosting.CreateBuilder("127.0.0.1", 0, tls: false).Build();
        app.MapWebSocket("/echo", static (_, sender) => new WebSocketMessageListener<WebSocketFrameSender>(sender, static (s, _, payload) => s.Send(WebSocketOpcode.Binary, payload)),
            o => { o.Session = new WebSocketSessionOptions { Pool = pool }; });
        await app.StartAsync();
        var sockets = new List<Socket>();
        try
        {
            using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            await OpenHostileAsync(new IPEndPoint(IPAddress.Loopback, SampleHosting.BaseUrl(app).Port), sockets, null, bound.Token);

            // Each websocket that sent 1000 bytes holds one 4 KiB segment; the one that sent 3 MiB holds segments of 4 to
            // 64 KiB that add up to its bytes, at most one segment more.
            const long Gathered = (Hostile * 1000L) + (3 << 20);
            const long Limit = (Hostile * 4096L) + (3 << 20) + (64 * 1024);
            await Eventually.True(() => pool.OutstandingBytes >= Gathered); // the server reads on its own: until it has read it all

             output.WriteLine($"pooled bytes held for {Hostile + 1} hostile websockets: {pool.OutstandingBytes / 1024} KiB (they sent {(Hostile * 1014 + (3 << 20) + 14) / 1024} KiB)");
            Assert.InRange(pool.OutstandingBytes, Gathered, Limit);
        }
        finally
        {
            sockets.ForEach(socket => socket.Dispose());
            await app.StopAsync();
            await app.DisposeAsync();
        }

        Assert.Equal(0, pool.Outstanding); // every segment came back when the connections ended
    }

    /// <summary>A hundred websockets that announce a 16 MiB frame and send 1000 bytes of it, and one that sends 3 MiB of
    /// its 16 MiB and stalls; <paramref name="meanwhile"/> runs after every tenth.</summary>
    private static async Task OpenHostileAsync(IPEndPoint endPoint, List<Socket> sockets, Func<Task>? meanwhile, CancellationToken cancellationToken)
    {
        // A frame header announcing 16 MiB (the limit, so allowed), masked.
        byte[] header = [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x11, 0x22, 0x33, 0x44];
        for (int i = 0; i < Hostile; i++)
        {
            Socket socket = await UpgradeAsync(endPoint, cancellationToken);
            sockets.Add(socket);
            await socket.SendAsync((byte[])[.. header, .. new byte[1000]], SocketFlags.None, cancellationToken);
            if (i % 10 == 9 && meanwhile is not null)
            {
                await meanwhile();
            }
        }

        Socket stalling = await UpgradeAsync(endPoint, cancellationToken);
        sockets.Add(stalling);
        await stalling.SendAsync(header, SocketFlags.None, cancellationToken);
        byte[] chunk = new byte[64 * 1024];
        for (int sent = 0; sent < 3 << 20; sent += chunk.Length)
        {
            await stalling.SendAsync(chunk, SocketFlags.None, cancellationToken);
        }
    }

    private static Process StartServer()
    {
        var start = new ProcessStartInfo(Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") ?? "dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            ArgumentList = { typeof(EchoServerHost).Assembly.Location, "--host", "127.0.0.1", "--port", "0" },
            Environment = { ["DOTNET_GCHeapHardLimit"] = "0x10000000" },
        };
        return Process.Start(start)!;
    }

    private static async Task<Uri> ListeningUrlAsync(Process server, CancellationToken cancellationToken)
    {
        while (await server.StandardOutput.ReadLineAsync(cancellationToken) is { } line)
        {
            Match match = ListeningLine().Match(line);
            if (match.Success)
            {
                _ = server.StandardOutput.ReadToEndAsync(CancellationToken.None); // keep the pipe drained
                _ = server.StandardError.ReadToEndAsync(CancellationToken.None);
                return new Uri(match.Groups[1].Value);
            }
        }

        throw new InvalidOperationException($"The server exited before listening: {await server.StandardError.ReadToEndAsync(cancellationToken)}");
    }

    private static async Task<Socket> UpgradeAsync(IPEndPoint endPoint, CancellationToken cancellationToken)
    {
        Socket socket = await RawHttp.ConnectAsync(endPoint);
        await socket.SendAsync(Encoding.ASCII.GetBytes(RawHttp.Upgrade("/echo")), SocketFlags.None, cancellationToken);
        Assert.StartsWith("HTTP/1.1 101 ", await RawHttp.ReadHeadAsync(socket));
        return socket;
    }

    private static async Task AssertEchoAsync(RawWebSocket socket, byte[] payload)
    {
        await socket.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, payload));
        var echo = await socket.ReadFrameAsync();
        Assert.True(echo is { Opcode: WebSocketOpcode.Binary }, "the well-behaved websocket got no echo");
        Assert.True(payload.AsSpan().SequenceEqual(echo.Value.Payload), "the echo differs");
    }

    /// <summary>The process's resident memory (Linux), or 0 where /proc is not there.</summary>
    private static long ResidentBytes(Process process)
    {
        string status = $"/proc/{process.Id}/status";
        if (!File.Exists(status))
        {
            return 0;
        }

        Match match = ResidentLine().Match(File.ReadAllText(status));
        return match.Success ? long.Parse(match.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) * 1024 : 0;
    }

    [GeneratedRegex(@"listening on (\S+)")]
    private static partial Regex ListeningLine();

    [GeneratedRegex(@"VmRSS:\s+(\d+) kB")]
    private static partial Regex ResidentLine();
}
