using WebSocketCodec.Broadcast;
using WebSocketCodec.Broadcast.Run;

namespace WebSocketCodec.Bench.Tests.Broadcast;

/// <summary>The broadcast tool's burst mode, tiny: 20 websockets each publish 5 messages at once and the server relays
/// every one to the whole group (<see cref="SlowMemberPolicy.Close"/>, default session options), on our endpoint and on
/// the fast path and on the lean transport. Asserts that every websocket got every message, each sender's in order, none was closed, and the page
/// and CSV were written; no time is asserted.</summary>
public sealed class BurstModeSmokeTests
{
    [Fact]
    public async Task EveryMemberGetsEveryMessageOfABurstAndNoneIsClosed()
    {
        var options = new BroadcastOptions
        {
            Variants = [BroadcastVariants.Group, BroadcastVariants.GroupFastPath, BroadcastVariants.GroupLean], WebSockets = [20], Payloads = [64], Repeat = 1, Burst = 5,
            BurstTimeout = TimeSpan.FromSeconds(60),
        };
        IReadOnlyList<BurstMeasurement> results = await BurstRunner.RunAsync(options, cancellationToken: RawHttp.Timeout(120));

        Assert.Equal([BroadcastVariants.Group, BroadcastVariants.GroupFastPath, BroadcastVariants.GroupLean], results.Select(r => r.Variant));
        foreach (BurstMeasurement result in results)
        {
            Assert.True(result.IsClean, result.ToString());
            Assert.Equal(20, result.Complete); // every member had all 20 × (1 warm-up + 5) messages
            Assert.Equal(20 * 20 * 5, result.Receipts); // the measured burst: every member, every sender's 5
            Assert.Equal(20 * 5, result.Relayed); // the server relayed each message once, in the measured window
            Assert.Equal(0, result.Closed);
            Assert.Equal(0, result.ServerClosed);
            Assert.Equal(0, result.Ended);
            Assert.Equal(0, result.OutOfOrder); // each websocket checks every sender's order
            Assert.False(result.TimedOut);
            Assert.True(result.LatencyP50Ns > 0 && result.LatencyP99Ns >= result.LatencyP50Ns && result.LatencyMaxNs >= result.LatencyP99Ns, result.ToString());
            Assert.True(result.TimeToAllNs >= result.MemberCompleteP50Ns && result.MemberCompleteP50Ns > 0, result.ToString());
        }

        string directory = Directory.CreateTempSubdirectory("burst-smoke").FullName;
        try
        {
            string prefix = Path.Combine(directory, "burst-smoke");
            await BurstPage.WriteAsync(prefix, results, options, "broadcast --burst 5 --smoke", "machine");
            string page = await File.ReadAllTextAsync(prefix + ".md");
            string csv = await File.ReadAllTextAsync(prefix + ".csv");
            Assert.Contains("- 20 websockets × 5 messages × 64 B, group: **0** healthy members closed in 1 runs (0: **met**); every member had every message in 1/1 runs", page, StringComparison.Ordinal);
            Assert.Contains("| 20 | 5 | 64 B | group-fastpath | 20 | 0 | 0 |", page, StringComparison.Ordinal);
            Assert.Contains("| 20 | 5 | 64 B | group-lean | 20 | 0 | 0 |", page, StringComparison.Ordinal);
            Assert.Contains("`OutboundHardLimit` none per member, the process's `BroadcastBudget`", page, StringComparison.Ordinal);
            Assert.Contains(",20,5,64,group,20,0,,0,0,0,0,2000,2000,100,", csv, StringComparison.Ordinal);
            Assert.Equal(4, csv.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length); // the header and one row per variant's run
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    [Fact]
    public void ThePageCountsClosedMembersAgainstTheTarget()
    {
        static BurstMeasurement Result(int run, int closed, double p50Ms) => new()
        {
            Variant = BroadcastVariants.Group, PayloadBytes = 64, WebSockets = 1000, Messages = 10, Run = run, Complete = 1000 - closed,
            Closed = closed, CloseCodes = closed > 0 ? $"1008×{closed}" : "", Ended = closed, ServerClosed = closed,
            Receipts = 10_000_000, ExpectedReceipts = 10_000_000, LatencyP50Ns = (long)(p50Ms * 1e6), LatencyP99Ns = (long)(p50Ms * 2e6), LatencyMaxNs = (long)(p50Ms * 3e6),
        };
        BurstMeasurement[] results = [Result(1, 0, 100), Result(2, 3, 300), Result(3, 0, 200)];

        string page = BurstPage.ToMarkdown(results, new BroadcastOptions { Burst = 10, Repeat = 3 }, "broadcast --burst 10", "machine");

        Assert.Contains("- 1,000 websockets × 10 messages × 64 B, group: **3** healthy members closed in 3 runs (0: **not met**); every member had every message in 2/3 runs; delivery p50/p99 (medians of the runs) 200.0/400.0 ms.", page, StringComparison.Ordinal);
        Assert.Contains("| 2 | 1,000 | 10 | 64 B | group | 997 | 3 (1008×3) | 3 |", page, StringComparison.Ordinal);
        Assert.Contains("3 incomplete, 3 closed (1008×3), 3 ended, 3 closed by the group", page, StringComparison.Ordinal);
    }
}
