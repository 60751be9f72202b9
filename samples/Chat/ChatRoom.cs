using System.Buffers;
using WebSocketCodec.Akka.Cluster;

namespace WebSocketCodec.Samples.Chat;

/// <summary>One room: a <see cref="WebSocketGroup"/> that closes a member that stops reading (1008), so every member
/// left has had every message, in the order the room relayed them. A member behind a burst is not closed while its peer
/// keeps reading (the library's rule by progress): only one whose peer took nothing for the slow-consumer timeout, or
/// one of the furthest behind when the process's broadcast budget is full (the library's defaults). Retired for good when its last member leaves (see
/// <see cref="ChatRooms"/>). On a cluster (<c>--seeds</c>) the room is a cluster group: its members on every node
/// get its messages, each node closing its own slow members.</summary>
public sealed class ChatRoom
{
    private readonly object _gate = new();
    private readonly WebSocketGroup _group;
    private readonly ClusterWebSocketGroup? _cluster;
    private int _joined;
    private bool _retired;
    private int _slowMembersClosed;

    internal ChatRoom(string name, ArrayPool<byte>? pool, ClusterWebSocketGroup? cluster = null)
    {
        Name = name;
        _cluster = cluster;
        _group = cluster?.Local ?? new WebSocketGroup(SlowMemberPolicy.Close, pool);
    }

    /// <summary>The room's name (the <c>{room}</c> of <c>/chat/{room}</c>).</summary>
    public string Name { get; }

    /// <summary>The members that receive the room's messages now (a member closed for not reading is out at once,
    /// before its websocket has ended).</summary>
    public int MemberCount => _group.Count;

    /// <summary>How many members' websockets ended closed for not reading (1008 "slow consumer").</summary>
    public int SlowMembersClosed => Volatile.Read(ref _slowMembersClosed);

    /// <summary>Sends one text to every member, the sender included, encoded once (once per node on a cluster: the
    /// room's members on the other nodes get it through their node). Never waits on a member.</summary>
    internal void Relay(ReadOnlySpan<byte> text)
    {
        if (_cluster is { } cluster)
        {
            cluster.Broadcast(WebSocketOpcode.Text, text);
        }
        else
        {
            _group.Broadcast(WebSocketOpcode.Text, text);
        }
    }

    /// <summary>A member's websocket ended as a slow consumer.</summary>
    internal void CountSlowMember() => Interlocked.Increment(ref _slowMembersClosed);

    /// <summary>Adds a member unless the room was retired (its last member left meanwhile).</summary>
    internal bool TryJoin(IWebSocketGroupMember member)
    {
        lock (_gate)
        {
            if (_retired)
            {
                return false;
            }

            _joined++;
            _group.Add(member);
            return true;
        }
    }

    /// <summary>Removes a member that joined; retires the room when it was the last.</summary>
    /// <returns>Whether the room is now retired.</returns>
    internal bool Leave(IWebSocketGroupMember member)
    {
        lock (_gate)
        {
            _group.Remove(member); // false when a broadcast already dropped it (closed as slow, or gone)
            _retired = --_joined == 0;
            return _retired;
        }
    }
}
