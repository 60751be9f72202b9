using System.Collections.Concurrent;
using Akka.Actor;
using Akka.Cluster;
using ClusterExtension = Akka.Cluster.Cluster;

namespace WebSocketCodec.Akka.Tests.Infrastructure;

/// <summary>Every member and reachability event one cluster node publishes (its initial state as events first), for a
/// test to wait on with <see cref="Eventually"/>.</summary>
public sealed class ClusterEventLog
{
    private readonly ConcurrentQueue<ClusterEvent.IClusterDomainEvent> _events = new();

    private ClusterEventLog()
    {
    }

    /// <summary>The events so far, in order.</summary>
    public IReadOnlyCollection<ClusterEvent.IClusterDomainEvent> Events => _events;

    /// <summary>Subscribes a recorder on <paramref name="node"/>.</summary>
    public static ClusterEventLog Of(ActorSystem node)
    {
        var log = new ClusterEventLog();
        IActorRef recorder = node.ActorOf(Props.Create(() => new Recorder(log._events)), "cluster-event-log");
        ClusterExtension.Get(node).Subscribe(
            recorder, ClusterEvent.SubscriptionInitialStateMode.InitialStateAsEvents, typeof(ClusterEvent.IMemberEvent), typeof(ClusterEvent.IReachabilityEvent));
        return log;
    }

    /// <summary>Whether <paramref name="address"/> was seen unreachable (in the events from index
    /// <paramref name="since"/> on).</summary>
    public bool SawUnreachable(Address address, int since = 0) =>
        _events.Skip(since).Any(e => e is ClusterEvent.UnreachableMember unreachable && unreachable.Member.Address == address);

    /// <summary>Whether <paramref name="address"/> was seen removed after <paramref name="previous"/> (Exiting: it left;
    /// Down: it was downed).</summary>
    public bool SawRemoved(Address address, MemberStatus previous) =>
        _events.Any(e => e is ClusterEvent.MemberRemoved removed && removed.Member.Address == address && removed.PreviousStatus == previous);

    /// <summary>The members seen up and not removed since.</summary>
    public int UpCount()
    {
        var up = new HashSet<Address>();
        foreach (ClusterEvent.IClusterDomainEvent e in _events)
        {
            switch (e)
            {
                case ClusterEvent.MemberUp memberUp:
                    up.Add(memberUp.Member.Address);
                    break;
                case ClusterEvent.MemberRemoved removed:
                    up.Remove(removed.Member.Address);
                    break;
            }
        }

        return up.Count;
    }

    private sealed class Recorder : ReceiveActor
    {
        public Recorder(ConcurrentQueue<ClusterEvent.IClusterDomainEvent> events) =>
            Receive<ClusterEvent.IClusterDomainEvent>(events.Enqueue);
    }
}
