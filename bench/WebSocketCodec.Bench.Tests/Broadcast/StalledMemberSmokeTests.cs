using WebSocketCodec.Broadcast;
using WebSocketCodec.Broadcast.Run;

namespace WebSocketCodec.Bench.Tests.Broadcast;

/// <summary>The broadcast benchmark's <c>--stalled</c> mode, tiny: 20 reading websockets and 2 that never read in the
/// same group (or member list). The group delivers every broadcast to every reading websocket in order and skips the
/// stalled ones; a loop variant is held by them and the run says so within the hold bound instead of hanging. No time
/// is asserted.</summary>
public sealed class StalledMemberSmokeTests
{
    [Fact]
    public async Task TheGroupDeliversEveryBroadcastPastStalledMembersAndALoopIsReportedHeld()
    {
        var options = new BroadcastOptions
        {
            Variants = [BroadcastVariants.Group, BroadcastVariants.SenderLoop], Stalled = [2], WebSockets = [20], Payloads = [64],
            WarmUp = 5, Broadcasts = 20, Repeat = 1, HoldBound = TimeSpan.FromSeconds(2),
        };
        IReadOnlyList<BroadcastMeasurement> results = await BroadcastRunner.RunAsync(options, cancellationToken: RawHttp.Timeout(120));

        Assert.Equal([BroadcastVariants.Group, BroadcastVariants.SenderLoop], results.Select(r => r.Variant));
        BroadcastMeasurement group = results[0];
        Assert.True(group.IsClean, group.ToString());
        Assert.Equal(2, group.Stalled);
        Assert.Equal(20 * 25, group.Received); // every reading websocket, every broadcast
        Assert.Equal(0, group.OutOfOrder); // each in its own order (the client checks every websocket's sequence)
        Assert.Equal(20, group.Broadcasts);
        Assert.Equal(2 * 20, group.Skipped); // the stalled ones were above their high water mark for every measured broadcast
        Assert.Equal(2, group.StalledMembersAtEnd); // skipped, not closed: still members
        Assert.Null(group.HeldAfter);

        BroadcastMeasurement loop = results[1];
        Assert.True(loop.IsHeld, loop.ToString());
        Assert.False(loop.IsClean);
        Assert.True(loop.Received < 20 * 25, loop.ToString());
        Assert.StartsWith("held by a stalled member after ", loop.Failures, StringComparison.Ordinal);
    }

    [Fact]
    public void ThePageComparesDeliveryWithAndWithoutStalledMembersOnTheMedians()
    {
        static BroadcastMeasurement Result(string variant, int stalled, int run, double p50Ms, double p99Ms, int? heldAfter = null) => new()
        {
            Variant = variant, Stalled = stalled, PayloadBytes = 1024, WebSockets = 1000, Run = run, Broadcasts = heldAfter is null ? 100 : 0,
            CpuMs = 1000, UserCpuMs = 400, DeliveryP50Ns = (long)(p50Ms * 1e6), DeliveryP99Ns = (long)(p99Ms * 1e6),
            Received = heldAfter is null ? 1000 * 150 : 1000, Expected = 1000 * 150, HeldAfter = heldAfter,
            Skipped = heldAfter is null ? stalled * 100 : 0, StalledMembersAtEnd = stalled, LoadAverage = 1.5,
        };
        BroadcastMeasurement[] results =
        [
            Result(BroadcastVariants.Group, 0, 1, 10, 20), Result(BroadcastVariants.Group, 10, 1, 11, 30),
            Result(BroadcastVariants.Group, 0, 2, 12, 22), Result(BroadcastVariants.Group, 10, 2, 12, 24),
            Result(BroadcastVariants.Group, 0, 3, 14, 30), Result(BroadcastVariants.Group, 10, 3, 30, 50),
            Result(BroadcastVariants.AspNetLoop, 0, 1, 13, 25), Result(BroadcastVariants.AspNetLoop, 10, 1, 0, 0, heldAfter: 0),
        ];

        string page = BroadcastReport.ToMarkdown(results, new BroadcastOptions { Stalled = [0, 10] }, "broadcast");

        // group: p50 medians 12 (none) and 12 (stalled): 1.00, within the none runs' 10-14; p99 22 and 30: 1.36.
        Assert.Contains("| 1,000 | 1 KiB | group | 10 | 12.00 | 12.00 | 1.00 | 22.00 | 30.00 | 1.36 | 10.00-14.00 | 10.0 | 3/0/3 | **yes** |", page, StringComparison.Ordinal);
        Assert.Contains("| 1,000 | 1 KiB | aspnet-loop | 10 | 13.00 | **held** after 0 broadcasts | - | 25.00 | - | - | 13.00-13.00 | - | 0/1/1 | **no** |", page, StringComparison.Ordinal);
        Assert.Contains("| 1 | 1,000 | 1 KiB | aspnet-loop +10 stalled |", page, StringComparison.Ordinal);
        Assert.Contains("held by a stalled member after 0 broadcasts", page, StringComparison.Ordinal);
        Assert.DoesNotContain("above 4:", page, StringComparison.Ordinal);

        // The CPU medians count only the runs without stalled members (group: 10,000 µs from three runs, not six).
        Assert.Contains("| 1,000 | 1 KiB | group | 10000 |", page, StringComparison.Ordinal);

        // The CSV reads back into the same page.
        Assert.Equal(page, BroadcastReport.ToMarkdown(BroadcastReport.FromCsv(BroadcastReport.ToCsv(results)), new BroadcastOptions { Stalled = [0, 10] }, "broadcast"));
    }
}
