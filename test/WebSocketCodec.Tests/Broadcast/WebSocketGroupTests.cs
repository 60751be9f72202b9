using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Broadcast;

/// <summary>The group's fan-out: the same bytes for every member, never waiting on one, one order for all, slow and
/// gone members handled, pooled memory given back on every path.</summary>
public sealed class WebSocketGroupTests
{
    private static byte[] Text(string s) => System.Text.Encoding.UTF8.GetBytes(s);

    [Fact]
    public void MembersJoinOnceAndLeave()
    {
        var group = new WebSocketGroup();
        var a = new FakeMember();
        var b = new FakeMember();

        Assert.True(group.Add(a));
        Assert.False(group.Add(a));
        Assert.True(group.Add(b));
        Assert.Equal(2, group.Count);
        Assert.True(group.Remove(a));
        Assert.False(group.Remove(a));
        Assert.False(group.Contains(a));
        Assert.True(group.Contains(b));
        Assert.Equal(1, group.Count);
        Assert.Throws<ArgumentException>(() => group.Add(new FakeMember(WebSocketRole.Client)));
        Assert.Throws<ArgumentNullException>(() => group.Add(null!));
    }

    [Fact]
    public void CloseAllClosesEveryMemberOnceAndEmptiesTheGroup()
    {
        var group = new WebSocketGroup();
        FakeMember[] members = [new(), new(), new()];
        foreach (FakeMember member in members)
        {
            group.Add(member);
        }

        Assert.Equal(3, group.CloseAll(CloseStatus.GoingAway, "node leaving"));

        Assert.Equal(0, group.Count);
        Assert.All(members, member => Assert.Equal([(CloseStatus.GoingAway, "node leaving")], member.Closes));
        Assert.Equal(0, group.CloseAll()); // nobody left to close
        Assert.All(members, member => Assert.Single(member.Closes));
        Assert.Equal(default, group.Broadcast(WebSocketOpcode.Text, Text("after"))); // and nobody gets more
        Assert.All(members, member => Assert.Empty(member.Frames));
    }

    [Fact]
    public async Task CloseAllSendsEachWebSocketItsCloseAfterWhatTheGroupSentIt()
    {
        var transport = new WebSocketCodec.Tests.Driver.BufferTransport();
        using var driver = new WebSocketDriver(transport, WebSocketRole.Server, new WebSocketSessionOptions());
        driver.Start(new NoFrames());
        var group = new WebSocketGroup();
        group.Add(driver);
        group.Broadcast(WebSocketOpcode.Text, Text("last words"));

        group.CloseAll(CloseStatus.GoingAway, "bye");

        await Eventually.True(() => driver.State == WebSocketSessionState.CloseSent);
        byte[] wire = transport.Committed.ToArray();
        byte[] text = [0x81, 10, .. Text("last words")];
        Assert.Equal(text, wire[..text.Length]);
        Assert.Equal(0x88, wire[text.Length]); // then the Close
        Assert.Equal(1001, (wire[text.Length + 2] << 8) | wire[text.Length + 3]);
    }

    private sealed class NoFrames : IWebSocketFrameListener
    {
        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }

    [Fact]
    public void EveryMemberGetsTheSameEncodedBytes()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        FakeMember[] members = [new(), new(), new()];
        foreach (FakeMember member in members)
        {
            group.Add(member);
        }

        BroadcastResult result = group.Broadcast(WebSocketOpcode.Text, Text("hello"));

        Assert.Equal(new BroadcastResult(3, 0, 0, 0), result);
        byte[] expected = WireFrames.Server(WebSocketOpcode.Text, Text("hello"));
        Assert.All(members, m => Assert.Equal(expected, Assert.Single(m.Frames)));
        Assert.Equal(1, pool.Rented); // encoded once
        Assert.Equal(0, pool.Outstanding);
        Assert.All(members, m => Assert.Equal(1, m.Flushes)); // flushed once the fan-out was over
    }

    [Fact]
    public void ABusyMemberQueuesTheFrameAndHoldsItsMemoryUntilItRuns()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        var busy = new FakeMember { Busy = true };
        var free = new FakeMember();
        group.Add(busy);
        group.Add(free);

        Assert.Equal(2, group.Broadcast(WebSocketOpcode.Binary, [1]).Sent);

        Assert.Single(free.Frames);
        Assert.Empty(busy.Frames);
        Assert.Equal(1, busy.Schedules);
        Assert.Equal(1, pool.Outstanding); // the busy member holds the frame

        Assert.Equal(0, busy.Flushes); // its own run flushes
        busy.Run();
        Assert.Equal(WireFrames.Server(WebSocketOpcode.Binary, [1]), Assert.Single(busy.Frames));
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void OnceAFrameIsQueuedLaterOnesQueueBehindIt()
    {
        var group = new WebSocketGroup();
        var member = new FakeMember { Busy = true };
        group.Add(member);

        group.Broadcast(WebSocketOpcode.Text, Text("first"));
        member.Busy = false; // free now, but "first" still waits: "second" must not overtake it
        group.Broadcast(WebSocketOpcode.Text, Text("second"));
        Assert.Empty(member.Frames);
        Assert.Equal(1, member.Schedules); // one run takes both

        member.Run();
        Assert.Equal(
            [WireFrames.Server(WebSocketOpcode.Text, Text("first")), WireFrames.Server(WebSocketOpcode.Text, Text("second"))],
            member.Frames);
    }

    [Fact]
    public void SkipLeavesASlowMemberInTheGroupWithoutTheMessage()
    {
        var group = new WebSocketGroup(SlowMemberPolicy.Skip);
        var slow = new FakeMember { Writable = false };
        var fast = new FakeMember();
        group.Add(slow);
        group.Add(fast);

        Assert.Equal(new BroadcastResult(1, 1, 0, 0), group.Broadcast(WebSocketOpcode.Text, Text("a")));
        slow.Writable = true;
        Assert.Equal(new BroadcastResult(2, 0, 0, 0), group.Broadcast(WebSocketOpcode.Text, Text("b")));

        Assert.Equal([WireFrames.Server(WebSocketOpcode.Text, Text("b"))], slow.Frames);
        Assert.Equal(2, fast.Frames.Count);
        Assert.Equal(2, group.Count);
        Assert.Equal(0, slow.SlowCloses);
    }

    [Fact]
    public void QueuedBytesCountAgainstTheHighWaterMark()
    {
        var group = new WebSocketGroup(SlowMemberPolicy.Skip);
        var busy = new FakeMember { Busy = true }; // high water mark 1024
        group.Add(busy);

        int sent = 0;
        for (int i = 0; i < 10; i++)
        {
            sent += group.Broadcast(WebSocketOpcode.Binary, new byte[300]).Sent;
        }

        Assert.Equal(3, sent); // 3 × 304 bytes queued; a fourth would pass the mark
        busy.Run();
        Assert.Equal(3, busy.Frames.Count);
        Assert.Equal(1, group.Broadcast(WebSocketOpcode.Binary, new byte[300]).Sent); // the queue drained
    }

    [Fact]
    public void CloseQueuesForAnUnwritableMemberUpToAHardLimitTheApplicationSetThenClosesItOnItsOwnThread()
    {
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        var slow = new FakeMember(hardLimit: 4096) { Writable = false, OutputPending = 1024 }; // high water mark 1024
        var fast = new FakeMember();
        group.Add(slow);
        group.Add(fast);

        // 1,024 bytes in the output and 304 per frame: 10 frames queue (4,064 bytes together), the 11th would pass 4,096.
        for (int i = 0; i < 10; i++)
        {
            Assert.Equal(new BroadcastResult(2, 0, 0, 0), group.Broadcast(WebSocketOpcode.Binary, new byte[300]));
        }

        Assert.Equal(10 * 304, slow.QueuedBytes);
        Assert.Equal(new BroadcastResult(1, 0, 1, 0), group.Broadcast(WebSocketOpcode.Binary, new byte[300]));
        Assert.False(group.Contains(slow));
        Assert.Equal(0, slow.SlowCloses); // not on the broadcasting thread: the member's run closes it
        slow.Run();
        Assert.Equal(1, slow.SlowCloses);
        Assert.Empty(slow.Frames); // what it had queued is dropped with it: it left the group
        Assert.Equal(0, slow.QueuedBytes);

        Assert.Equal(new BroadcastResult(1, 0, 0, 0), group.Broadcast(WebSocketOpcode.Text, Text("b")));
        Assert.Empty(slow.Frames);
        Assert.Equal(12, fast.Frames.Count);
    }

    [Fact]
    public void AMemberBehindABurstGetsEveryMessageInOrderAsItsOutputDrains()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(SlowMemberPolicy.Close, pool);
        var behind = new FakeMember { Writable = false, OutputPending = 1024 }; // at its high water mark
        group.Add(behind);

        for (int i = 0; i < 8; i++)
        {
            Assert.Equal(new BroadcastResult(1, 0, 0, 0), group.Broadcast(WebSocketOpcode.Binary, [(byte)i]));
        }

        behind.Run(); // the output is at its mark: nothing is appended, nothing is lost
        Assert.Empty(behind.Frames);
        Assert.True(behind.HasQueued);

        behind.OutputPending = 0; // the peer took the bytes
        behind.Writable = true;
        int schedules = behind.Schedules;
        behind.OutputDrained();
        Assert.Equal(schedules + 1, behind.Schedules);
        behind.Run();
        Assert.Equal(Enumerable.Range(0, 8).Select(i => WireFrames.Server(WebSocketOpcode.Binary, [(byte)i])), behind.Frames);
        Assert.False(behind.HasQueued);
        Assert.Equal(0, behind.SlowCloses);
        Assert.True(group.Contains(behind));
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void QueuedFramesAreAppendedOnlyWhileTheOutputIsUnderItsHighWaterMark()
    {
        var group = new WebSocketGroup(SlowMemberPolicy.Close);
        var member = new FakeMember { Busy = true };
        group.Add(member);
        for (int i = 0; i < 5; i++)
        {
            group.Broadcast(WebSocketOpcode.Binary, [(byte)i]);
        }

        member.OutputPending = 1023; // under the mark (the fake's level does not grow with appends): all go
        member.Run();
        Assert.Equal(5, member.Frames.Count);

        for (int i = 0; i < 5; i++)
        {
            group.Broadcast(WebSocketOpcode.Binary, [(byte)i]);
        }

        member.OutputPending = 1024;
        member.Run();
        Assert.Equal(5, member.Frames.Count);
        Assert.True(member.HasQueued);
    }

    [Fact]
    public void ABroadcastMadeDuringAFanOutReachesEveryoneAfterTheOneInProgress()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        FakeMember[] members = [new(), new(), new()];
        foreach (FakeMember member in members)
        {
            group.Add(member);
        }

        BroadcastResult nested = default;
        members[1].DuringAppend = () => nested = group.Broadcast(WebSocketOpcode.Text, Text("nested"));
        group.Broadcast(WebSocketOpcode.Text, Text("outer"));

        Assert.Equal(default, nested); // queued behind the one in progress
        byte[][] expected = [WireFrames.Server(WebSocketOpcode.Text, Text("outer")), WireFrames.Server(WebSocketOpcode.Text, Text("nested"))];
        Assert.All(members, m => Assert.Equal(expected, m.Frames));
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void MembersThatCannotSendAreDropped()
    {
        var group = new WebSocketGroup();
        var gone = new FakeMember { Sending = false };
        group.Add(gone);
        group.Add(new FakeMember());

        Assert.Equal(new BroadcastResult(1, 0, 0, 1), group.Broadcast(WebSocketOpcode.Text, Text("a")));
        Assert.False(group.Contains(gone));
        Assert.Equal(1, group.Count);
    }

    [Fact]
    public void AFrameQueuedForAMemberThatEndedIsReleasedUnsent()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        var member = new FakeMember { Busy = true };
        group.Add(member);
        group.Broadcast(WebSocketOpcode.Binary, [1, 2, 3]);

        member.Sending = false; // closed before its run
        member.Run();

        Assert.Empty(member.Frames);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void AMemberWhoseThreadIsGoneReleasesTheQueueAtOnce()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        var member = new FakeMember { Busy = true, Rejects = true };
        group.Add(member);

        group.Broadcast(WebSocketOpcode.Binary, [1]);

        Assert.False(member.HasQueued);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void AFrameCannotGoBetweenAMembersOwnFragments()
    {
        var group = new WebSocketGroup();
        var member = new FakeMember { InMessage = true };
        group.Add(member);

        group.Broadcast(WebSocketOpcode.Text, Text("a"));

        Assert.Empty(member.Frames);
    }

    [Fact]
    public void AFrameOfYourOwnServesSeveralGroupsAndIsRefusedOnceDisposed()
    {
        var pool = new CountingPool();
        var first = new WebSocketGroup();
        var second = new WebSocketGroup();
        var a = new FakeMember { Busy = true };
        var b = new FakeMember();
        first.Add(a);
        second.Add(b);

        BroadcastFrame frame = BroadcastFrame.Create(WebSocketOpcode.Text, Text("news"), pool);
        first.Broadcast(frame);
        second.Broadcast(frame);
        frame.Dispose();

        Assert.Equal(1, pool.Outstanding); // a still holds it
        a.Run();
        Assert.Equal(a.Frames, b.Frames);
        Assert.Equal(0, pool.Outstanding);
        Assert.Throws<ObjectDisposedException>(() => first.Broadcast(frame));
    }

    [Fact]
    public async Task ConcurrentBroadcastsReachEveryMemberInOneOrderWhileMembersComeAndGo()
    {
        var pool = new CountingPool();
        var group = new WebSocketGroup(pool: pool);
        // No water mark to speak of: a member busy for long (a loaded machine) queues thousands of frames, none skipped.
        FakeMember[] steady = [.. Enumerable.Range(0, 8).Select(_ => new FakeMember(runOnThreadPool: true, highWaterMark: long.MaxValue))];
        foreach (FakeMember member in steady)
        {
            group.Add(member);
        }

        const int PerThread = 2_000;
        using var churnStop = new CancellationTokenSource();
        var churn = Task.Run(() =>
        {
            // Members join and leave, and the steady ones turn busy and free, while broadcasts run.
            var random = new Random(7);
            while (!churnStop.IsCancellationRequested)
            {
                var passer = new FakeMember(runOnThreadPool: true, highWaterMark: long.MaxValue) { Busy = random.Next(2) == 0 };
                group.Add(passer);
                steady[random.Next(steady.Length)].Busy = random.Next(2) == 0;
                group.Remove(passer);
            }
        });
        Task[] senders = [.. Enumerable.Range(0, 4).Select(t => Task.Run(() =>
        {
            for (int i = 0; i < PerThread; i++)
            {
                Assert.Equal(0, group.Broadcast(WebSocketOpcode.Binary, [(byte)t, (byte)(i >> 8), (byte)i]).Skipped);
            }
        }))];
        await Task.WhenAll(senders).WaitAsync(TimeSpan.FromSeconds(30));
        churnStop.Cancel();
        await churn.WaitAsync(TimeSpan.FromSeconds(10));
        foreach (FakeMember member in steady)
        {
            member.Busy = false;
        }

        await Eventually.True(() => steady.All(m => m.Frames.Count == 4 * PerThread), TimeSpan.FromSeconds(20));
        List<byte[]> order = steady[0].Frames;
        Assert.All(steady, m => Assert.Equal(order, m.Frames));
        for (int t = 0; t < 4; t++)
        {
            // Each thread's own broadcasts keep their order.
            int[] mine = [.. order.Where(f => f[2] == t).Select(f => (f[3] << 8) | f[4])];
            Assert.Equal(Enumerable.Range(0, PerThread), mine);
        }

        await Eventually.True(() => pool.Outstanding == 0, TimeSpan.FromSeconds(10));
        Assert.Equal(0, pool.BadReturns);
    }
}
