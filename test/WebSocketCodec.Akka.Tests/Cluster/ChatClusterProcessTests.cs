using System.Net.WebSockets;
using Xunit.Abstractions;

namespace WebSocketCodec.Akka.Tests.Cluster;

/// <summary>Serial: each test runs four processes; beside other tests on 2 cores their failure detectors would see
/// pauses that are only the machine's.</summary>
[CollectionDefinition(nameof(ChatClusterProcessCollection), DisableParallelization = true)]
public sealed class ChatClusterProcessCollection;

/// <summary>
/// The chat on a cluster with real parts: <c>samples/Chat --seeds</c> as three processes (each room a cluster group),
/// <c>samples/ChatGateway</c> (YARP) in front when asked, and .NET's <see cref="ClientWebSocket"/> as the members. A
/// burst from 49 of 50 members reaches every member on every node, each sender's texts in order, directly and through
/// the gateway; a node killed with SIGKILL holds up nobody on the others, and its members reconnect through the gateway;
/// a node paused with SIGSTOP holds up nobody either, is downed, and stops when it resumes (its members get 1001); a
/// short pause loses nothing.
/// </summary>
[Collection(nameof(ChatClusterProcessCollection))]
public sealed class ChatClusterProcessTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Bound = ChatClusterProcesses.Bound;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task Fifty_members_over_three_nodes_get_every_text_of_a_burst_in_order(bool throughGateway)
    {
        const int members = 50;
        const int texts = 40;
        await WithClusterAsync(gateway: throughGateway, async (cluster, room) =>
        {
            await JoinAsync(room, members, i => throughGateway ? cluster.GatewayRoomUrl("burst") : cluster.RoomUrl(i % 3, "burst"));

            await ChatClusterProcesses.WhenEveryMemberHearsEveryOtherAsync(room);

            // 49 members send 40 texts each, all at once; the 50th only reads.
            await Task.WhenAll(room.Take(members - 1).Select((member, m) => Task.Run(async () =>
            {
                for (int k = 0; k < texts; k++)
                {
                    await member.SendAsync($"m{m}:{k}");
                }
            })));
            int expected = (members - 1) * texts;
            await Eventually.True(() => room.All(member => member.Texts.Count >= expected), Bound);

            foreach (ChatMember member in room)
            {
                Assert.Equal(expected, member.Texts.Count);
                for (int m = 0; m < members - 1; m++)
                {
                    Assert.Equal(Enumerable.Range(0, texts).Select(k => $"m{m}:{k}"), member.TextsFrom($"m{m}:"));
                }
            }
        });
    }

    [Fact]
    public async Task A_killed_node_holds_up_nobody_and_its_members_reconnect_through_the_gateway()
    {
        await WithClusterAsync(gateway: true, async (cluster, room) =>
        {
            await JoinAsync(room, 6, i => cluster.RoomUrl(i % 3, "kill"));

            await ChatClusterProcesses.WhenEveryMemberHearsEveryOtherAsync(room);
            int[] marks = [.. cluster.Nodes.Select(node => node.LineCount)];
            cluster.Nodes[2].Signal("KILL");
            ChatMember[] survivors = [.. room.Where((_, i) => i % 3 != 2)];
            ChatMember[] orphans = [.. room.Where((_, i) => i % 3 == 2)];
            await Task.WhenAll(orphans.Select(orphan => orphan.Closed)).WaitAsync(Bound);

            // At once, before the others even know: the survivors' texts reach all survivors, in order.
            await SendAsync(survivors[0], "before-detection", 20);
            await Eventually.True(() => survivors.All(s => s.TextsFrom("before-detection:").Count == 20), Bound);
            Assert.All(survivors, s => Assert.Equal(Numbered("before-detection", 20), s.TextsFrom("before-detection:")));

            // The others down the dead node (the split brain resolver), then the orphans rejoin through the gateway,
            // which sends them to a node that answers its health checks.
            await Task.WhenAll(cluster.Nodes.Take(2).Select((node, i) => node.WaitForLineAsync(line => line == "cluster members: 2", Bound, since: marks[i])));
            List<ChatMember> rejoined = [];
            foreach (ChatMember _ in orphans)
            {
                rejoined.Add(await JoinWithRetriesAsync(cluster.GatewayRoomUrl("kill")));
            }

            ChatMember[] everyone = [.. survivors, .. rejoined];
            await ChatClusterProcesses.WhenEveryMemberHearsEveryOtherAsync(everyone);
            await SendAsync(survivors[1], "after-detection", 20);
            await Eventually.True(() => everyone.All(s => s.TextsFrom("after-detection:").Count == 20), Bound);
            Assert.All(everyone, s => Assert.Equal(Numbered("after-detection", 20), s.TextsFrom("after-detection:")));
            room.AddRange(rejoined);
        });
    }

    [Fact]
    public async Task A_paused_node_holds_up_nobody_is_downed_and_stops_when_it_resumes()
    {
        await WithClusterAsync(gateway: false, async (cluster, room) =>
        {
            await JoinAsync(room, 6, i => cluster.RoomUrl(i % 3, "pause"));

            await ChatClusterProcesses.WhenEveryMemberHearsEveryOtherAsync(room);
            ChatMember[] survivors = [.. room.Where((_, i) => i % 3 != 2)];
            ChatMember[] paused = [.. room.Where((_, i) => i % 3 == 2)];
            int[] marks = [.. cluster.Nodes.Select(node => node.LineCount)];
            cluster.Nodes[2].Signal("STOP");

            await SendAsync(survivors[0], "while-paused", 20);
            await Eventually.True(() => survivors.All(s => s.TextsFrom("while-paused:").Count == 20), Bound);
            Assert.All(survivors, s => Assert.Equal(Numbered("while-paused", 20), s.TextsFrom("while-paused:")));

            // Unreachable for long enough, it is downed and removed by the others.
            await Task.WhenAll(cluster.Nodes.Take(2).Select((node, i) => node.WaitForLineAsync(line => line == "cluster members: 2", Bound, since: marks[i])));
            await SendAsync(survivors[1], "after-down", 20);
            await Eventually.True(() => survivors.All(s => s.TextsFrom("after-down:").Count == 20), Bound);

            // Resumed, it learns it was removed: its actor system ends, so does the node, closing its websockets (1001).
            cluster.Nodes[2].Signal("CONT");
            Assert.True(await cluster.Nodes[2].WaitForExitAsync(Bound), "the downed node went on running after it resumed");
            WebSocketCloseStatus?[] ends = await Task.WhenAll(paused.Select(member => member.Closed)).WaitAsync(Bound);
            output.WriteLine($"the paused node's members ended with: {string.Join(", ", ends)}");
            Assert.All(ends, end => Assert.Equal(WebSocketCloseStatus.EndpointUnavailable, end));
        });
    }

    [Fact]
    public async Task A_short_pause_loses_nothing_for_the_paused_nodes_members()
    {
        await WithClusterAsync(gateway: false, async (cluster, room) =>
        {
            await JoinAsync(room, 3, i => cluster.RoomUrl(i, "blip"));

            await ChatClusterProcesses.WhenEveryMemberHearsEveryOtherAsync(room);
            int mark = cluster.Nodes[0].LineCount;
            cluster.Nodes[2].Signal("STOP");
            await SendAsync(room[0], "during-blip", 20);
            await Task.Delay(TimeSpan.FromSeconds(1)); // a garbage collection's or a VM's pause: well below detection
            cluster.Nodes[2].Signal("CONT");

            await Eventually.True(() => room.All(m => m.TextsFrom("during-blip:").Count == 20), Bound);
            Assert.All(room, m => Assert.Equal(Numbered("during-blip", 20), m.TextsFrom("during-blip:")));
            Assert.Equal(0, cluster.Nodes[0].Count(line => line == "cluster members: 2", since: mark)); // nobody was downed
        });
    }

    /// <summary>Starts the cluster, runs <paramref name="test"/> with it and a list for its members (closed after it),
    /// and prints every process's output when it fails.</summary>
    private async Task WithClusterAsync(bool gateway, Func<ChatClusterProcesses, List<ChatMember>, Task> test)
    {
        using ChatClusterProcesses cluster = await ChatClusterProcesses.StartAsync(gateway);
        List<ChatMember> room = [];
        try
        {
            await test(cluster, room);
        }
        catch
        {
            output.WriteLine(cluster.Describe());
            throw;
        }
        finally
        {
            await Task.WhenAll(room.Select(member => member.DisposeAsync().AsTask()));
        }
    }

    /// <summary>Adds <paramref name="count"/> members to <paramref name="room"/>, the i-th at <paramref name="url"/>(i).</summary>
    private static async Task JoinAsync(List<ChatMember> room, int count, Func<int, Uri> url)
    {
        for (int i = 0; i < count; i++)
        {
            room.Add(await ChatMember.JoinAsync(url(i), Bound));
        }
    }

    private static async Task SendAsync(ChatMember member, string prefix, int count)
    {
        for (int k = 0; k < count; k++)
        {
            await member.SendAsync($"{prefix}:{k}");
        }
    }

    private static IEnumerable<string> Numbered(string prefix, int count) => Enumerable.Range(0, count).Select(k => $"{prefix}:{k}");

    /// <summary>Joins through the gateway, again every half second while it answers with an error (a node it still
    /// took for healthy).</summary>
    private static async Task<ChatMember> JoinWithRetriesAsync(Uri url)
    {
        using var deadline = new CancellationTokenSource(Bound);
        while (true)
        {
            try
            {
                return await ChatMember.JoinAsync(url, TimeSpan.FromSeconds(10));
            }
            catch (WebSocketException) when (!deadline.IsCancellationRequested)
            {
                await Task.Delay(500);
            }
        }
    }
}
