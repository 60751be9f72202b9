using static WebSocketCodec.Testing.Contract.ContractFrameReader;

namespace WebSocketCodec.Testing.Contract;

// Groups: broadcasts reach every member in one order, a burst closes no reader, the budget bounds a room that stopped.
public abstract partial class WebSocketHostContract
{
    [Fact]
    public async Task GroupMembersGetEveryBroadcastInOrderAndAMemberThatClosedIsDropped()
    {
        (IContractServer server, ContractRecord record) = await StartAsync(ContractBehaviour.JoinGroup);
        await using (server)
        {
            using ContractClient first = await ContractClient.ConnectAsync(server);
            using ContractClient second = await ContractClient.ConnectAsync(server);
            await first.SendAsync(WebSocketOpcode.Text, "join");
            WebSocketDriver firstMember = await record.Joined.Reader.ReadAsync(RawHttp.Timeout());
            await second.SendAsync(WebSocketOpcode.Text, "join");
            await record.Joined.Reader.ReadAsync(RawHttp.Timeout());

            Assert.Equal(new BroadcastResult(2, 0, 0, 0), record.Group.Broadcast(WebSocketOpcode.Text, "one"u8));
            Assert.Equal(new BroadcastResult(2, 0, 0, 0), record.Group.Broadcast(WebSocketOpcode.Binary, "two"u8));
            foreach (ContractClient member in new[] { first, second })
            {
                Assert.Equal((WebSocketOpcode.Text, "one"), Text(await member.ReadFrameAsync()));
                Assert.Equal((WebSocketOpcode.Binary, "two"), Text(await member.ReadFrameAsync()));
            }

            await first.SendAsync(WireFrames.ClientClose(1000, "leaving"));
            Assert.Equal((1000, ""), await first.ReadCloseAsync());
            Assert.Equal(WebSocketEndReason.Closed, (await record.NextEndAsync()).EndReason);
            Assert.True(firstMember.Completion.IsCompleted);

            // The member that closed can send no more: the next broadcast drops it and reaches the other.
            Assert.Equal(new BroadcastResult(1, 0, 0, 1), record.Group.Broadcast(WebSocketOpcode.Text, "three"u8));
            Assert.Equal(1, record.Group.Count);
            Assert.Equal((WebSocketOpcode.Text, "three"), Text(await second.ReadFrameAsync()));
        }
    }

    [Fact]
    public async Task ABurstToAGroupReachesEveryReadingMemberInOrderWithoutClosingAny()
    {
        // The chat burst of the issue "Right under real load": far more at once than the members' transports take, so
        // every member is above the high water mark for a moment (asserted: not writable), yet none is closed, since
        // each peer goes on taking bytes; what the slow-member rule closes is a peer that takes nothing for the
        // slow-consumer timeout (30 s here), or a member furthest behind when the budget of queued messages (the
        // process's, a quarter of its memory) would be passed. The session keeps the library's outbound defaults: no
        // hard limit per member, though each falls about 6 MB behind.
        const int Messages = 6_000; // 6 MB to each member: more than a loopback socket takes ahead of a slow reader
        var record = new ContractRecord { Group = new WebSocketGroup(SlowMemberPolicy.Close) };
        Assert.Equal(0, Quick.OutboundHardLimit);
        Assert.Equal(WebSocketSessionOptions.Default.OutboundHighWaterMark, Quick.OutboundHighWaterMark);
        (IContractServer server, _) = await StartAsync(ContractBehaviour.JoinGroup, Quick, record: record);
        await using (server)
        {
            var members = new List<ContractClient>();
            try
            {
                for (int i = 0; i < 4; i++)
                {
                    // Small receive buffers: the burst waits in our output, not in the kernel's.
                    ContractClient member = await ContractClient.ConnectAsync(server, receiveBufferSize: 32 * 1024);
                    members.Add(member);
                    await member.SendAsync(WebSocketOpcode.Text, "join");
                    await record.Joined.Reader.ReadAsync(RawHttp.Timeout());
                }

                byte[] payload = new byte[1000];
                int dropped = 0;
                for (int i = 0; i < Messages; i++)
                {
                    BitConverter.TryWriteBytes(payload, i);
                    BroadcastResult result = record.Group.Broadcast(WebSocketOpcode.Binary, payload);
                    dropped += result.Closed + result.Removed + result.Skipped;
                }

                Assert.False(await record.NextWritabilityAsync()); // the burst went above the high water mark
                int[] got = await Task.WhenAll(members.Select(async member =>
                {
                    for (int i = 0; i < Messages; i++)
                    {
                        (WebSocketOpcode Opcode, byte[] Payload)? frame = await member.ReadFrameAsync();
                        Assert.Equal(WebSocketOpcode.Binary, frame?.Opcode);
                        Assert.Equal(i, BitConverter.ToInt32(frame!.Value.Payload));
                    }

                    return Messages;
                })).WaitAsync(RawHttp.Timeout());
                Assert.All(got, count => Assert.Equal(Messages, count));
                Assert.Equal(0, dropped);
                Assert.Equal(4, record.Group.Count);
                Assert.False(record.Ends.Reader.TryPeek(out _)); // no member ended
            }
            finally
            {
                members.ForEach(member => member.Dispose());
            }
        }
    }

    [Fact]
    public async Task TheBudgetBoundsWhatARoomThatStoppedReadingHoldsAndClosesItsMembersWith1008()
    {
        // Every member stops reading while the room goes on: what is queued for them would grow without bound, and no
        // slow-consumer timeout (30 s) has passed yet. The group's budget (512 KiB here; the process's by default) holds
        // it: the members furthest behind are closed first (1008 "slow consumer"), until none is left; every byte
        // queued is counted, never above the limit, and every pooled frame comes back.
        const int Members = 4, Payload = 1000, MaxMessages = 20_000; // 20 MB: far more than the kernel buffers take
        var pool = new CountingPool();
        var budget = new BroadcastBudget(512 * 1024);
        var record = new ContractRecord { Group = new WebSocketGroup(SlowMemberPolicy.Close, pool, budget) };
        (IContractServer server, _) = await StartAsync(ContractBehaviour.JoinGroup, Quick with { CloseTimeout = TimeSpan.FromSeconds(2) }, record: record);
        await using (server)
        {
            var members = new List<ContractClient>();
            try
            {
                for (int i = 0; i < Members; i++)
                {
                    ContractClient member = await ContractClient.ConnectAsync(server, receiveBufferSize: 4096);
                    members.Add(member);
                    await member.SendAsync(WebSocketOpcode.Text, "join");
                    await record.Joined.Reader.ReadAsync(RawHttp.Timeout());
                }

                // From now on nobody reads.
                byte[] payload = new byte[Payload];
                int messages = 0, closed = 0;
                while (messages < MaxMessages && record.Group.Count > 0)
                {
                    closed += record.Group.Broadcast(WebSocketOpcode.Binary, payload).Closed;
                    messages++;
                    Assert.True(budget.QueuedBytes <= budget.Limit, $"{budget.QueuedBytes} B queued after message {messages}");
                }

                Assert.Equal(0, record.Group.Count); // all closed, well before the slow-consumer timeout
                Assert.Equal(Members, closed);
                Assert.Equal(Members, budget.MembersClosed);
                Assert.InRange(budget.PeakQueuedBytes, budget.Limit - (budget.Limit / 16) - Payload, budget.Limit);
                for (int i = 0; i < Members; i++)
                {
                    WebSocketCloseInfo end = await record.NextEndAsync(); // the Close cannot be written: the close timeout
                    Assert.Equal(WebSocketEndReason.SlowConsumer, end.EndReason);
                    Assert.Equal(CloseStatus.PolicyViolation, end.SentStatus);
                }

                await Eventually.True(() => budget.QueuedBytes == 0 && pool.Outstanding == 0);
            }
            finally
            {
                members.ForEach(member => member.Dispose());
            }
        }
    }
}
