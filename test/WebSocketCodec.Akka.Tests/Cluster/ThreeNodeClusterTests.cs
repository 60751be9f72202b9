using Akka.Actor;
using Akka.Cluster;
using ClusterExtension = Akka.Cluster.Cluster;

namespace WebSocketCodec.Akka.Tests.Cluster;

/// <summary>Akka.Cluster over the websocket transport: three nodes form a cluster (seed node in akka.ws:// form), one
/// is killed (terminated without leaving: the others see it unreachable, and the split brain resolver downs and
/// removes it), then one leaves (the last sees it removed after Exiting).</summary>
public sealed class ThreeNodeClusterTests : IAsyncLifetime
{
    // Short failure detection and decision times, so the test takes seconds; the split brain resolver (keep-majority)
    // is Akka 1.5's default downing provider.
    private const string ClusterHocon = Nodes.FastCluster + """
        akka.cluster {
          unreachable-nodes-reaper-interval = 200ms
          failure-detector {
            heartbeat-interval = 200ms
            acceptable-heartbeat-pause = 3s # dotnet test runs the test projects side by side on 2 cores
            expected-response-after = 500ms
          }
          downing-provider-class = "Akka.Cluster.SBR.SplitBrainResolverProvider, Akka.Cluster"
          split-brain-resolver {
            active-strategy = keep-majority
            stable-after = 2s
          }
        }
        """;

    private readonly List<ActorSystem> _nodes = [];

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync() => await Task.WhenAll(_nodes.Select(node => node.Terminate()));

    [Fact]
    public async Task Three_nodes_form_a_cluster_and_see_a_killed_node_removed_and_a_leaving_node_removed()
    {
        ActorSystem first = Start(ClusterHocon);
        Address seed = Nodes.AddressOf(first);
        Assert.Equal("akka.ws", seed.Protocol);
        ClusterExtension.Get(first).Join(seed);
        string joining = ClusterHocon + $"\nakka.cluster.seed-nodes = [\"{seed}\"]";
        ActorSystem second = Start(joining);
        // The node to kill: ActorSystem.Terminate must not run the coordinated shutdown (which would leave first).
        ActorSystem third = Start(joining + "\nakka.coordinated-shutdown.run-by-actor-system-terminate = off");
        ClusterEventLog firstLog = ClusterEventLog.Of(first);
        ClusterEventLog secondLog = ClusterEventLog.Of(second);

        await Eventually.True(() => firstLog.UpCount() == 3 && secondLog.UpCount() == 3, TimeSpan.FromSeconds(10));

        Address killed = Nodes.AddressOf(third);
        await third.Terminate();
        await Eventually.True(
            () => firstLog.SawRemoved(killed, MemberStatus.Down) && secondLog.SawRemoved(killed, MemberStatus.Down), TimeSpan.FromSeconds(20));
        Assert.True(firstLog.SawUnreachable(killed));
        Assert.True(secondLog.SawUnreachable(killed));

        Address leaving = Nodes.AddressOf(second);
        int beforeLeave = firstLog.Events.Count;
        await ClusterExtension.Get(second).LeaveAsync().WaitAsync(TimeSpan.FromSeconds(10));
        await Eventually.True(() => firstLog.SawRemoved(leaving, MemberStatus.Exiting), TimeSpan.FromSeconds(10));
        Assert.False(firstLog.SawUnreachable(leaving, since: beforeLeave)); // a graceful leave, not a failure
        Assert.Equal(1, firstLog.UpCount());
    }

    private ActorSystem Start(string extra)
    {
        ActorSystem node = Nodes.Start("cluster", extra: extra);
        _nodes.Add(node);
        return node;
    }
}
