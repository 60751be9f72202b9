using Akka.Actor;
using Akka.Cluster.Tools.PublishSubscribe;

namespace WebSocketCodec.Akka.Cluster;

/// <summary>A websocket group across an Akka cluster: reach for it when a group's clients (a chat room, a feed, a
/// notification channel) are spread over several servers; on one server, <see cref="WebSocketGroup"/> is enough.
/// <see cref="Add"/> this node's websockets, <see cref="Broadcast"/> from any node.</summary>
/// <remarks>A broadcast goes to this node's members at once (encoded once, the same bytes for all, never waiting on
/// any), and to every other node that has the group as one message per node (a binary frame of ours: the opcode's byte
/// and the payload, inside Akka's envelope), where it is encoded once and goes to that node's members. Every member
/// gets one publisher's messages in the order they were published (Akka's remoting keeps the order between two nodes);
/// messages of different publishers may interleave differently on different nodes. Each node applies its slow-member
/// rule to its own members. Delivery between nodes is at most once: a message on its way to a node that crashes, or
/// that is cut off until Akka gives up on it, is lost for that node's members.
/// <para>It has a <see cref="WebSocketGroup"/>'s <see cref="Add"/>, <see cref="Remove"/>, <see cref="Contains"/> and
/// <see cref="Broadcast"/> of an opcode and a payload, with these differences: its slow-member policy is
/// <see cref="SlowMemberPolicy.Close"/> unless <see cref="ClusterWebSocketGroups.Group"/> asks otherwise when it first
/// makes the group on a node (a <see cref="WebSocketGroup"/>'s default is <see cref="SlowMemberPolicy.Skip"/>); it has no
/// <see cref="WebSocketGroup.Broadcast(BroadcastFrame)"/>, so one encoding cannot be shared with other groups;
/// <see cref="Broadcast"/>'s result and <see cref="LocalCount"/> are this node's, and <see cref="Local"/> is this node's
/// members as a <see cref="WebSocketGroup"/> (its own broadcasts and <see cref="WebSocketGroup.CloseAll"/> stay on this
/// node); a payload longer than <see cref="MaxPayloadLength"/> is refused.</para></remarks>
public sealed class ClusterWebSocketGroup
{
    private readonly ClusterWebSocketGroups _groups;
    private readonly string _path;

    internal ClusterWebSocketGroup(string name, WebSocketGroup local, ClusterWebSocketGroups groups, string path, int maxPayloadLength)
    {
        Name = name;
        Local = local;
        _groups = groups;
        _path = path;
        MaxPayloadLength = maxPayloadLength;
    }

    /// <summary>The group's name, the same on every node.</summary>
    public string Name { get; }

    /// <summary>This node's members, as a local group (its count, its policy; a broadcast on it stays on this node).</summary>
    public WebSocketGroup Local { get; }

    /// <summary>The largest payload a broadcast may carry: the remoting frame size (<c>maximum-frame-size</c>, 128,000
    /// bytes by default) less room for Akka's envelope and this group's path.</summary>
    public int MaxPayloadLength { get; }

    /// <summary>This node's members now.</summary>
    public int LocalCount => Local.Count;

    /// <summary>Adds a websocket of this node.</summary>
    /// <returns>False when it was a member already.</returns>
    public bool Add(IWebSocketGroupMember member) => Local.Add(member);

    /// <summary>Removes a websocket of this node.</summary>
    /// <returns>False when it was not a member.</returns>
    public bool Remove(IWebSocketGroupMember member) => Local.Remove(member);

    /// <summary>Whether a websocket of this node is a member.</summary>
    public bool Contains(IWebSocketGroupMember member) => Local.Contains(member);

    /// <summary>Sends one whole message to the members of every node: this node's now, the others' through one message
    /// per node. Never waits; safe from any thread, a listener's callbacks included.</summary>
    /// <param name="opcode">Text or Binary.</param>
    /// <param name="payload">The message (copied; yours again when this returns).</param>
    /// <returns>What the broadcast did on this node (the other nodes' members are reached later).</returns>
    /// <exception cref="ArgumentException">The payload is longer than <see cref="MaxPayloadLength"/> (no node gets
    /// it: send it in parts or raise <c>maximum-frame-size</c> on every node), or the opcode is not Text or Binary.</exception>
    public BroadcastResult Broadcast(WebSocketOpcode opcode, ReadOnlySpan<byte> payload)
    {
        if (opcode is not (WebSocketOpcode.Text or WebSocketOpcode.Binary))
        {
            throw new ArgumentException("A group message is Text or Binary.", nameof(opcode));
        }

        if (payload.Length > MaxPayloadLength)
        {
            throw new ArgumentException(
                $"A broadcast to the cluster group '{Name}' carries at most {MaxPayloadLength} bytes (the remoting frame size less Akka's envelope), not {payload.Length}: send it in parts, or raise maximum-frame-size on every node.",
                nameof(payload));
        }

        _groups.Mediator.Tell(new SendToAll(_path, GroupFrame.Create(opcode, payload), excludeSelf: true), ActorRefs.NoSender);
        return Local.Broadcast(opcode, payload);
    }
}
