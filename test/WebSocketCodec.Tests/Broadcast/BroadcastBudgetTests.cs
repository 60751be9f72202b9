using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Broadcast;

/// <summary>The process-wide bound on queued group messages: a message counts once however many members hold it, a
/// member behind a burst is not closed while the budget holds it, and when it would not, the members furthest behind
/// go first (Close) or miss the message (Skip); memory stays bounded, counted, and every buffer comes back.</summary>
public sealed class BroadcastBudgetTests
{
    private const int Payload = 300; // 304-byte frames

    [Fact]
    public void AMessageQueuedForManyMembersCountsItsBufferOnceAndAReferencePerMember()
    {
        var pool = new CountingPool();
        var budget = new BroadcastBudget(1024 * 1024);
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool, budget);
        FakeMember[] members = [.. Enumerable.Range(0, 10).Select(_ => new FakeMember { Busy = true })];
        foreach (FakeMember member in members)
        {
            group.Add(member);
        }

        using BroadcastFrame frame = BroadcastFrame.Create(WebSocketOpcode.Binary, new byte[Payload], pool);
        Assert.Equal(new BroadcastResult(10, 0, 0, 0), group.Broadcast(frame));
        Assert.Equal(frame.Capacity + (10 * BroadcastBudget.ReferenceBytes), budget.QueuedBytes);

        for (int i = 0; i < 9; i++)
        {
            members[i].Run();
        }

        Assert.Equal(frame.Capacity + BroadcastBudget.ReferenceBytes, budget.QueuedBytes); // one member still holds it
        members[9].Run();
        Assert.Equal(0, budget.QueuedBytes);
        Assert.Equal(frame.Capacity + (10 * BroadcastBudget.ReferenceBytes), budget.PeakQueuedBytes);
        Assert.All(members, member => Assert.Single(member.Frames));
    }

    [Fact]
    public void AMemberFarBehindABurstIsNotClosedWhileTheBudgetHoldsIt()
    {
        // 20,000 frames of 304 bytes: 6 MB behind, more than the 4 MiB the rule before this one allowed a member.
        var pool = new CountingPool();
        var budget = new BroadcastBudget(64L * 1024 * 1024);
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool, budget);
        var behind = new FakeMember { Writable = false, OutputPending = 1024 };
        group.Add(behind);
        for (int i = 0; i < 20_000; i++)
        {
            Assert.Equal(new BroadcastResult(1, 0, 0, 0), group.Broadcast(WebSocketOpcode.Binary, new byte[Payload]));
        }

        Assert.Equal(20_000L * 304, behind.QueuedBytes);
        behind.OutputPending = 0;
        behind.Writable = true;
        behind.Run();
        Assert.Equal(20_000, behind.Frames.Count);
        Assert.Equal(0, behind.SlowCloses);
        Assert.Equal(0, budget.MembersClosed);
        Assert.Equal(0, budget.QueuedBytes);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void PastTheBudgetTheMemberFurthestBehindIsClosedFirstAndTheOthersGetEveryMessage()
    {
        var pool = new CountingPool();
        var budget = new BroadcastBudget(64 * 1024);
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool, budget);
        var silent = new FakeMember { Writable = false, OutputPending = 1024 }; // never drains
        FakeMember[] readers = [.. Enumerable.Range(0, 5).Select(_ => new FakeMember { Busy = true })];
        group.Add(silent);
        foreach (FakeMember reader in readers)
        {
            group.Add(reader);
        }

        const int Messages = 3000; // the silent member's 3,000 frames (of 32 pooled bytes and a reference) pass 64 KiB
        int closed = 0;
        for (int i = 0; i < Messages; i++)
        {
            closed += group.Broadcast(WebSocketOpcode.Binary, BitConverter.GetBytes(i)).Closed;
            foreach (FakeMember reader in readers)
            {
                reader.Run(); // the readers keep up, a message behind at most
            }

            Assert.True(budget.QueuedBytes <= budget.Limit, $"{budget.QueuedBytes} queued after message {i}");
        }

        Assert.Equal(1, budget.MembersClosed);
        Assert.Equal(1, closed);
        Assert.False(group.Contains(silent));
        silent.Run();
        Assert.Equal(1, silent.SlowCloses);
        Assert.Equal(0, silent.QueuedBytes);
        Assert.All(readers, reader =>
        {
            Assert.Equal(0, reader.SlowCloses);
            Assert.Equal(Enumerable.Range(0, Messages).Select(i => WireFrames.Server(WebSocketOpcode.Binary, BitConverter.GetBytes(i))), reader.Frames);
        });
        Assert.Equal(5, group.Count);
        Assert.Equal(0, budget.QueuedBytes);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void ARoomWhoseMembersAllStopReadingStaysWithinTheBudgetAndIsClosedFurthestBehindFirst()
    {
        var pool = new CountingPool();
        var budget = new BroadcastBudget(256 * 1024);
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool, budget);
        FakeMember[] members = [.. Enumerable.Range(0, 50).Select(_ => new FakeMember { Writable = false, OutputPending = 1024 })];
        foreach (FakeMember member in members)
        {
            group.Add(member);
        }

        // Member i stops taking messages after message 10 × i: the later one stops, the less it holds.
        var closedAt = new Dictionary<FakeMember, int>();
        for (int i = 0; i < 5000 && group.Count > 0; i++)
        {
            group.Broadcast(WebSocketOpcode.Binary, new byte[Payload]);
            Assert.True(budget.QueuedBytes <= budget.Limit, $"{budget.QueuedBytes} queued after message {i}");
            foreach (FakeMember member in members)
            {
                if (!closedAt.ContainsKey(member) && member.IsGone)
                {
                    closedAt[member] = i;
                }
                else if (i < 10 * Array.IndexOf(members, member))
                {
                    member.Writable = true;
                    member.OutputPending = 0;
                    member.Run(); // still reading
                    member.Writable = false;
                    member.OutputPending = 1024;
                }
            }
        }

        Assert.Equal(0, group.Count); // all stopped: all closed, none holds the budget
        Assert.Equal(50, budget.MembersClosed);
        Assert.True(budget.PeakQueuedBytes <= budget.Limit);
        int[] order = [.. members.Select(member => closedAt[member])];
        Assert.Equal(order.Order(), order); // the member that stopped first (furthest behind) was closed first
        foreach (FakeMember member in members)
        {
            member.Run();
            Assert.Equal(1, member.SlowCloses);
        }

        Assert.Equal(0, budget.QueuedBytes);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void UnderSkipAMessageThatWouldPassTheBudgetIsSkippedAndNobodyIsClosed()
    {
        var pool = new CountingPool();
        var budget = new BroadcastBudget(2000); // room for a few frames
        var group = new WebSocketGroup(SlowMemberPolicy.Skip, pool, budget);
        var member = new FakeMember(highWaterMark: 1024 * 1024) { Busy = true };
        group.Add(member);

        var results = Enumerable.Range(0, 10).Select(_ => group.Broadcast(WebSocketOpcode.Binary, new byte[Payload])).ToList();
        int sent = results.Sum(result => result.Sent);
        Assert.InRange(sent, 1, 6); // as many as 2,000 bytes hold
        Assert.Equal(10 - sent, results.Sum(result => result.Skipped));
        Assert.Equal(0, results.Sum(result => result.Closed));
        Assert.True(budget.QueuedBytes <= budget.Limit);
        member.Run();
        Assert.Equal(sent, member.Frames.Count);
        Assert.Equal(0, member.SlowCloses);
        Assert.True(group.Contains(member));
        Assert.Equal(0, budget.QueuedBytes);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void AMemberWhoseWebSocketEndedIsForgottenByTheBudget()
    {
        var budget = new BroadcastBudget(1024 * 1024);
        var group = new WebSocketGroup(SlowMemberPolicy.Close, budget: budget);
        var member = new FakeMember { Busy = true };
        group.Add(member);
        group.Broadcast(WebSocketOpcode.Binary, new byte[Payload]);
        Assert.Equal(1, budget.RegisteredCount);

        member.Abandon();
        Assert.Equal(0, budget.RegisteredCount);
        Assert.Equal(0, budget.QueuedBytes);
    }

    [Fact]
    public void TheSharedBudgetIsAQuarterOfWhatTheGcMayUse()
    {
        long available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        Assert.True(available > 0);
        Assert.Equal(available / 4, BroadcastBudget.DefaultLimit());
        Assert.Same(BroadcastBudget.Shared, new WebSocketGroup().Budget);
        Assert.Throws<ArgumentOutOfRangeException>(() => new BroadcastBudget(0));
        Assert.Throws<ArgumentOutOfRangeException>(() => BroadcastBudget.Shared.Limit = -1);
    }
}
