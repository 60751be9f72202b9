using System.Diagnostics;
using System.Net.Sockets;
using System.Text.Json;
using WebSocketCodec.Samples.Chat;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>
/// A burst in a busy room, from independent peers, with the library's defaults: node <c>ws</c> members each send their
/// texts at once, texts of 4,000 bytes (the chat's largest is 4 KiB), while one more member (a raw socket with a 4 KiB
/// receive buffer) never reads. Every reading member must get every text, each sender's in order and all in one order,
/// and none may be closed: a reader that keeps taking bytes is not a slow consumer however far behind the burst leaves
/// it (300 × 20 puts 24 MB behind each member; the rule before this one closed every reader past 4 MiB). The silent
/// member is closed (1008) by the slow-consumer timeout during the same burst, shortened here to keep the case short.
/// </summary>
public sealed class ChatBurstTests(NodeFixture node, ITestOutputHelper output) : IClassFixture<NodeFixture>
{
    private const int Size = 4000;
    private static readonly TimeSpan SlowConsumerTimeout = TimeSpan.FromSeconds(5);

    [SkippableTheory]
    [InlineData("kestrel", 50, 40)]
    [InlineData("kestrel", 200, 20)]
    [InlineData("kestrel", 300, 20)]
    [InlineData("lean", 50, 40)]
    [InlineData("lean", 200, 20)]
    [InlineData("lean", 300, 20)]
    public async Task EveryReadingMemberGetsEveryTextOfABurstAndOnlyTheSilentOneIsClosed(string transport, int members, int texts)
    {
        Skip.If(node.SkipReason is not null, node.SkipReason);
        IAsyncDisposable server;
        ChatRooms rooms;
        Uri roomUrl;
        if (transport == "lean")
        {
            LeanChatServerHost lean = LeanChatServerHost.Start(new ChatOptions { Port = 0, SlowConsumerTimeout = SlowConsumerTimeout });
            (server, rooms, roomUrl) = (lean, lean.Rooms, lean.RoomUrl("burst"));
        }
        else
        {
            ChatServerHost kestrel = await ChatServerHost.StartAsync(new ChatOptions { Port = 0, SlowConsumerTimeout = SlowConsumerTimeout });
            (server, rooms, roomUrl) = (kestrel, kestrel.Rooms, kestrel.RoomUrl("burst"));
        }

        await using IAsyncDisposable stopped = server;
        WebSocketSessionOptions session = new ChatOptions().Session; // the sample keeps the library's outbound defaults
        Assert.Equal(WebSocketSessionOptions.Default.OutboundHighWaterMark, session.OutboundHighWaterMark);
        Assert.Equal(WebSocketSessionOptions.Default.OutboundHardLimit, session.OutboundHardLimit);
        Assert.Equal(0, session.OutboundHardLimit);
        using Socket silent = await SilentChatMember.JoinAsync(roomUrl, "burst");
        await Eventually.True(() => rooms.Find("burst")?.MemberCount == 1);
        ChatRoom room = rooms.Find("burst")!;

        var start = new ProcessStartInfo("node", $"chat-burst.mjs {roomUrl} {members} {texts} {Size} 150")
        {
            WorkingDirectory = node.Directory,
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using Process peers = Process.Start(start)!;
        Task<string> errors = peers.StandardError.ReadToEndAsync();
        try
        {
            string? opened = await peers.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(30));
            if (opened != $"open {members}")
            {
                Assert.Fail(opened + await errors.WaitAsync(TimeSpan.FromSeconds(10)));
            }

            await Eventually.True(() => room.MemberCount == members + 1); // every member joined before anyone sends

            await peers.StandardInput.WriteLineAsync("go");
            await peers.StandardInput.FlushAsync();
            long go = Stopwatch.GetTimestamp();
            using var sampling = new CancellationTokenSource();
            Task<long> peakQueued = PeakQueuedAsync(sampling.Token);
            string? line = await peers.StandardOutput.ReadLineAsync().WaitAsync(TimeSpan.FromSeconds(180));
            await sampling.CancelAsync();
            await peers.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(10));
            output.WriteLine(line);
            output.WriteLine($"queued against the process's broadcast budget during the burst: peak {await peakQueued / 1e6:F1} MB (tests running beside included) of {BroadcastBudget.Shared.Limit / 1e6:F0} MB");
            Assert.NotNull(line);
            using JsonDocument report = JsonDocument.Parse(line);
            JsonElement root = report.RootElement;
            Assert.Equal("done", root.GetProperty("how").GetString());
            Assert.Equal(members, root.GetProperty("complete").GetInt32());
            Assert.Equal(members * texts, root.GetProperty("expected").GetInt32());
            Assert.Equal(0, root.GetProperty("closedEarly").GetArrayLength());
            Assert.Equal(0, root.GetProperty("outOfOrder").GetInt32());
            Assert.True(root.GetProperty("sameOrder").GetBoolean());
            Assert.Equal(0, peers.ExitCode);

            // The silent member, and only it, was closed as slow: its peer took nothing for the slow-consumer timeout
            // (looked at every quarter of it), then its Close could not be written either (the close timeout, 5 s).
            TimeSpan bound = (SlowConsumerTimeout * 1.25) + WebSocketSessionOptions.Default.CloseTimeout + TimeSpan.FromSeconds(10);
            await Eventually.True(() => room.SlowMembersClosed > 0, bound);
            TimeSpan closedAfter = Stopwatch.GetElapsedTime(go);
            output.WriteLine($"silent member's websocket ended as slow {closedAfter.TotalSeconds:F1} s after the burst began");
            Assert.True(closedAfter <= bound, $"the silent member ended {closedAfter.TotalSeconds:F1} s after the burst began");
            Assert.Equal(1, room.SlowMembersClosed);
        }
        finally
        {
            if (!peers.HasExited)
            {
                peers.Kill(entireProcessTree: true);
            }
        }
    }

    /// <summary>The most bytes the process's broadcast budget held at once until cancelled (at most 200 s), sampled every
    /// 10 ms.</summary>
    private static async Task<long> PeakQueuedAsync(CancellationToken cancellation)
    {
        long peak = 0;
        for (int i = 0; i < 20_000 && !cancellation.IsCancellationRequested; i++)
        {
            peak = Math.Max(peak, BroadcastBudget.Shared.QueuedBytes);
            await Task.Delay(10, CancellationToken.None);
        }

        return peak;
    }
}
