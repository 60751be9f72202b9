using System.Buffers;
using System.Collections.Concurrent;
using WebSocketCodec.Akka.Cluster;

namespace WebSocketCodec.Samples.Chat;

/// <summary>
/// The rooms by name: made by the first member to join, removed when the last one leaves. A room that emptied is
/// retired under its own lock before it is removed, and a member that finds a retired room removes it (if still there)
/// and joins a fresh one, so no member ever joins a room that is no longer listed.
/// </summary>
public sealed class ChatRooms
{
    private readonly ConcurrentDictionary<string, ChatRoom> _rooms = new(StringComparer.Ordinal);
    private readonly ArrayPool<byte>? _pool;
    private readonly Func<string, ClusterWebSocketGroup>? _cluster;

    /// <summary>Creates an empty set of rooms whose broadcast frames come from <paramref name="pool"/>; with
    /// <paramref name="cluster"/>, each room is the cluster group of its name.</summary>
    public ChatRooms(ArrayPool<byte>? pool = null, Func<string, ClusterWebSocketGroup>? cluster = null)
    {
        _pool = pool;
        _cluster = cluster;
    }

    /// <summary>How many rooms have members.</summary>
    public int Count => _rooms.Count;

    /// <summary>The room called <paramref name="name"/>, or null when nobody is in it.</summary>
    public ChatRoom? Find(string name) => _rooms.TryGetValue(name, out ChatRoom? room) ? room : null;

    /// <summary>Adds <paramref name="member"/> to the room called <paramref name="name"/>, making it if needed.</summary>
    public ChatRoom Join(string name, IWebSocketGroupMember member)
    {
        while (true)
        {
            ChatRoom room = _rooms.GetOrAdd(name, static (key, self) => new ChatRoom(key, self._pool, self._cluster?.Invoke(key)), this);
            if (room.TryJoin(member))
            {
                return room;
            }

            // Its last member left after we found it: take the retired room out (its leaver may not have yet) and retry.
            Forget(room);
        }
    }

    /// <summary>Takes <paramref name="member"/> out of <paramref name="room"/>, and the room out of the list when it
    /// was the last member.</summary>
    public void Leave(ChatRoom room, IWebSocketGroupMember member)
    {
        ArgumentNullException.ThrowIfNull(room);
        if (room.Leave(member))
        {
            Forget(room);
        }
    }

    /// <summary>Takes a retired room out of the list, unless it is gone already (a fresh room of that name stays).</summary>
    internal void Forget(ChatRoom room) => _rooms.TryRemove(new KeyValuePair<string, ChatRoom>(room.Name, room));
}
