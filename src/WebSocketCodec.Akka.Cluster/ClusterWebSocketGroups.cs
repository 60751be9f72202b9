using System.Buffers;
using System.Collections.Concurrent;
using Akka;
using Akka.Actor;
using Akka.Cluster.Tools.PublishSubscribe;
using Akka.Configuration;

namespace WebSocketCodec.Akka.Cluster;

/// <summary>The websocket groups of one cluster node (an Akka extension: <see cref="Get"/>): ask it for a group by name
/// (<see cref="Group"/>) on every node that serves that group's clients.</summary>
/// <remarks>A group of a given name is one group across the cluster: every node that asks for it holds its own members,
/// and a broadcast on any node reaches the members of every node. The node needs Akka.Cluster (<c>akka.actor.provider =
/// cluster</c>); any Akka.Remote transport carries the frames. When the node leaves the cluster (or is downed, or its
/// actor system terminates), its members are closed with 1001 (going away): their clients reconnect to another
/// node.</remarks>
public sealed class ClusterWebSocketGroups : IExtension
{
    /// <summary>Room for Akka's envelope around a frame (its recipient's path and address, the serializer's id, the
    /// sequence numbers) beside the group's own path: what a broadcast's payload leaves of the remoting frame size.</summary>
    private const int EnvelopeRoom = 512;

    private readonly ExtendedActorSystem _system;
    private readonly ConcurrentDictionary<string, Lazy<ClusterWebSocketGroup>> _groups = new(StringComparer.Ordinal);
    private readonly long _frameSize;

    /// <summary>Called by Akka (once per actor system): registers the frames' serializer and the close on leave.</summary>
    public ClusterWebSocketGroups(ExtendedActorSystem system)
    {
        ArgumentNullException.ThrowIfNull(system);
        _system = system;
        Mediator = DistributedPubSub.Get(system).Mediator;
        RegisterSerializer(system);
        _frameSize = RemotingFrameSize(system.Settings.Config);
        CoordinatedShutdown.Get(system).AddTask(CoordinatedShutdown.PhaseBeforeServiceUnbind, "close-websocket-groups", () =>
        {
            CloseAll();
            return Task.FromResult(Done.Instance);
        });
    }

    /// <summary>The distributed publish/subscribe mediator the groups use.</summary>
    internal IActorRef Mediator { get; }

    /// <summary>The groups of <paramref name="system"/>.</summary>
    public static ClusterWebSocketGroups Get(ActorSystem system) =>
        (system ?? throw new ArgumentNullException(nameof(system))).WithExtension<ClusterWebSocketGroups, ClusterWebSocketGroupsProvider>();

    /// <summary>The group named <paramref name="name"/> on this node, made on first use (the same object after that,
    /// whatever policy is asked for then). Other nodes learn that this node has the group within the mediator's gossip
    /// (<c>akka.cluster.pub-sub.gossip-interval</c>, 1 s by default): from then on their broadcasts reach its members.</summary>
    /// <param name="name">The group's name, the same on every node (a chat room's name, say).</param>
    /// <param name="slowMemberPolicy">What a broadcast does for this node's members above their high water mark.</param>
    /// <param name="pool">Where this node's broadcast frames' memory comes from (the shared pool when not given).</param>
    public ClusterWebSocketGroup Group(string name, SlowMemberPolicy slowMemberPolicy = SlowMemberPolicy.Close, ArrayPool<byte>? pool = null)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        return _groups.GetOrAdd(name, n => new Lazy<ClusterWebSocketGroup>(() => Create(n, slowMemberPolicy, pool))).Value;
    }

    /// <summary>Closes the members of every group on this node (1001 by default) and empties the groups; they stay
    /// usable. Runs by itself when the node leaves the cluster.</summary>
    /// <returns>How many websockets were closed.</returns>
    public int CloseAll(CloseStatus status = CloseStatus.GoingAway, string? reason = "node leaving the cluster") =>
        _groups.Values.Where(group => group.IsValueCreated).Sum(group => group.Value.Local.CloseAll(status, reason));

    private ClusterWebSocketGroup Create(string name, SlowMemberPolicy policy, ArrayPool<byte>? pool)
    {
        var local = new WebSocketGroup(policy, pool);
        IActorRef node = _system.SystemActorOf(Props.Create(() => new GroupNode(local)), "websocket-group-" + Uri.EscapeDataString(name));
        string path = node.Path.ToStringWithoutAddress();
        Mediator.Tell(new Put(node));
        int maxPayload = (int)Math.Min(int.MaxValue, Math.Max(0, _frameSize - EnvelopeRoom - path.Length - 1));
        return new ClusterWebSocketGroup(name, local, this, path, maxPayload);
    }

    /// <summary>Makes <see cref="GroupFrameSerializer"/> the frames' serializer. Through the configuration (as Akka's own
    /// extensions do): serializers added only at run time are lost when an extension's configuration is injected later
    /// (DistributedPubSub's, for one, rebuilds the bindings from the configuration); and at run time too, should this
    /// Akka version not rebuild them on the injection.</summary>
    private static void RegisterSerializer(ExtendedActorSystem system)
    {
        string serializer = typeof(GroupFrameSerializer).FullName + ", " + typeof(GroupFrameSerializer).Assembly.GetName().Name;
        string frame = typeof(GroupFrame).FullName + ", " + typeof(GroupFrame).Assembly.GetName().Name;
        system.Settings.InjectTopLevelFallback(ConfigurationFactory.ParseString($$"""
            akka.actor.serializers.websocket-group-frame = "{{serializer}}"
            akka.actor.serialization-bindings { "{{frame}}" = websocket-group-frame }
            akka.actor.serialization-identifiers { "{{serializer}}" = {{GroupFrameSerializer.Id}} }
            """));
        if (system.Serialization.FindSerializerForType(typeof(GroupFrame)) is not GroupFrameSerializer)
        {
            var instance = new GroupFrameSerializer(system);
            system.Serialization.AddSerializer("websocket-group-frame", instance);
            system.Serialization.AddSerializationMap(typeof(GroupFrame), instance);
        }
    }

    /// <summary>The largest PDU of the enabled transport: the websocket transport's maximum-frame-size (128,000 bytes
    /// unless set), else dot-netty's.</summary>
    private static long RemotingFrameSize(Config config)
    {
        IList<string> transports = config.GetStringList("akka.remote.enabled-transports", []);
        string key = transports.Contains("akka.remote.websocket")
            ? "akka.remote.websocket.maximum-frame-size"
            : "akka.remote.dot-netty.tcp.maximum-frame-size";
        return config.GetByteSize(key, null) ?? 128_000;
    }
}

/// <summary>Akka's provider of <see cref="ClusterWebSocketGroups"/>: Akka creates the extension with it; an application
/// calls <see cref="ClusterWebSocketGroups.Get"/> instead.</summary>
public sealed class ClusterWebSocketGroupsProvider : ExtensionIdProvider<ClusterWebSocketGroups>
{
    /// <inheritdoc />
    public override ClusterWebSocketGroups CreateExtension(ExtendedActorSystem system) => new(system);
}
