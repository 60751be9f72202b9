using System.Buffers;
using System.Diagnostics.Metrics;

namespace WebSocketCodec;

/// <summary>
/// A set of server websockets that receive the same messages: a chat room, a dashboard's viewers, a market-data feed.
/// <see cref="Broadcast(WebSocketOpcode, ReadOnlySpan{byte})"/> encodes the message once into pooled memory and hands
/// the same bytes to every member's output, never waiting on any: a member's own thread takes them when its output is
/// busy, and a member above its high water mark is skipped or has them queued until it is found slow
/// (<see cref="SlowMemberPolicy"/>), instead of holding up the others; what queued messages hold is bounded by a
/// <see cref="BroadcastBudget"/>, the process's unless given one. Broadcasts of one group are serialized, so every member gets them in the same order.
/// Thread-safe: members may join and leave while a broadcast runs (one removed meanwhile may still get that
/// broadcast, one added meanwhile may not); members that can no longer send are dropped at the next broadcast.
/// Members may be websockets of different hosts and protocols (Kestrel HTTP/1.1 and HTTP/2, SpanNetty).
/// </summary>
public sealed class WebSocketGroup
{
    private readonly object _membership = new();
    private readonly object _fanOut = new();
    private readonly List<BroadcastInbox> _members = [];
    private readonly Dictionary<BroadcastInbox, int> _index = new(ReferenceEqualityComparer.Instance);
    private readonly ArrayPool<byte> _pool;
    private readonly BroadcastBudget _budget;
    private BroadcastInbox[] _snapshot = [];
    private int _snapshotCount;
    private bool _changed;
    private readonly List<BroadcastInbox> _leaving = [];
    private Queue<BroadcastFrame>? _nested; // broadcasts made from within a fan-out, under the fan-out lock

    /// <summary>Creates an empty group.</summary>
    /// <param name="slowMemberPolicy">What a broadcast does for a member above its high water mark.</param>
    /// <param name="pool">Where broadcast frames' memory comes from (the shared pool when not given).</param>
    /// <param name="budget">What messages queued for members may hold, with other groups' that share it
    /// (<see cref="BroadcastBudget.Shared"/>, the process's, when not given).</param>
    public WebSocketGroup(SlowMemberPolicy slowMemberPolicy = SlowMemberPolicy.Skip, ArrayPool<byte>? pool = null, BroadcastBudget? budget = null)
    {
        SlowMemberPolicy = slowMemberPolicy;
        _pool = pool ?? ArrayPool<byte>.Shared;
        _budget = budget ?? BroadcastBudget.Shared;
    }

    /// <summary>What a broadcast does for a member above its high water mark.</summary>
    public SlowMemberPolicy SlowMemberPolicy { get; }

    /// <summary>The budget the messages queued for this group's members count against.</summary>
    public BroadcastBudget Budget => _budget;

    /// <summary>The number of members now.</summary>
    public int Count
    {
        get
        {
            lock (_membership)
            {
                return _members.Count;
            }
        }
    }

    /// <summary>Adds a websocket.</summary>
    /// <returns>False when it was a member already.</returns>
    /// <exception cref="ArgumentException">The websocket is a client: its frames must be masked one by one.</exception>
    public bool Add(IWebSocketGroupMember member)
    {
        BroadcastInbox inbox = InboxOf(member);
        if (inbox.Role != WebSocketRole.Server)
        {
            throw new ArgumentException("Only server websockets can join a group: a client masks each frame with a key of its own.", nameof(member));
        }

        lock (_membership)
        {
            if (!_index.TryAdd(inbox, _members.Count))
            {
                return false;
            }

            _members.Add(inbox);
            _changed = true;
            return true;
        }
    }

    /// <summary>Removes a websocket.</summary>
    /// <returns>False when it was not a member.</returns>
    public bool Remove(IWebSocketGroupMember member)
    {
        BroadcastInbox inbox = InboxOf(member);
        lock (_membership)
        {
            return RemoveLocked(inbox);
        }
    }

    /// <summary>Whether the websocket is a member.</summary>
    public bool Contains(IWebSocketGroupMember member)
    {
        BroadcastInbox inbox = InboxOf(member);
        lock (_membership)
        {
            return _index.ContainsKey(inbox);
        }
    }

    /// <summary>Closes every member with <paramref name="status"/> (each one's Close goes out after the group's
    /// messages it has taken) and empties the group: a room that shuts down, a server node that leaves its cluster.
    /// Never waits for a member; the closes complete on their own.</summary>
    /// <param name="status">The close status (1001, going away, by default).</param>
    /// <param name="reason">The close reason (at most 123 bytes of UTF-8).</param>
    /// <returns>How many members were closed.</returns>
    public int CloseAll(CloseStatus status = CloseStatus.GoingAway, string? reason = null)
    {
        BroadcastInbox[] members;
        lock (_membership)
        {
            members = [.. _members];
            _members.Clear();
            _index.Clear();
            _changed = true;
        }

        foreach (BroadcastInbox member in members)
        {
            member.Close(status, reason);
        }

        return members.Length;
    }

    /// <summary>Sends one whole message to every member: encoded once, the same bytes appended to each member's output
    /// (or queued for its own thread when its output is busy right now). Never waits for the network or for a member;
    /// safe from any thread, a listener's callbacks included.</summary>
    /// <param name="opcode">Text or Binary.</param>
    /// <param name="payload">The message (copied once; yours again when this returns).</param>
    /// <returns>How many members took it, were skipped or closed, and how many had left. Empty when called from code
    /// this group's fan-out runs (a handler raised by a member's flush): the message then goes to every member once the
    /// one in progress has reached them all, so the order stays one for all.</returns>
    public BroadcastResult Broadcast(WebSocketOpcode opcode, ReadOnlySpan<byte> payload)
    {
        using BroadcastFrame frame = BroadcastFrame.Create(opcode, payload, _pool);
        return FanOut(frame);
    }

    /// <summary>Sends a frame encoded beforehand (to send one message to several groups with one encoding). The frame
    /// stays yours to dispose.</summary>
    /// <exception cref="ObjectDisposedException">The frame was disposed and released.</exception>
    public BroadcastResult Broadcast(BroadcastFrame frame)
    {
        ArgumentNullException.ThrowIfNull(frame);
        ObjectDisposedException.ThrowIf(!frame.TryRetain(), frame);

        try
        {
            return FanOut(frame);
        }
        finally
        {
            frame.Release();
        }
    }

    private BroadcastResult FanOut(BroadcastFrame frame)
    {
        if (Monitor.IsEntered(_fanOut))
        {
            // Broadcast from code the fan-out itself runs (a handler raised by a member's flush): going through the
            // members now would reach those before this one ahead of the message still on its way to those after.
            // It goes out, to all, when the message in progress has reached everyone.
            ObjectDisposedException.ThrowIf(!frame.TryRetain(), frame);
            (_nested ??= new Queue<BroadcastFrame>()).Enqueue(frame);
            return default;
        }

        BroadcastResult result;
        lock (_fanOut)
        {
            ThreadLocks.Enter(); // sends made by code this thread runs now must not wait for a websocket's lock
            try
            {
                result = FanOutLocked(frame);
                while (_nested is { Count: > 0 })
                {
                    BroadcastFrame nested = _nested.Dequeue();
                    try
                    {
                        FanOutLocked(nested);
                    }
                    finally
                    {
                        nested.Release(); // the reference taken when it was queued
                    }
                }
            }
            finally
            {
                ThreadLocks.Exit();
            }
        }

        BroadcastInbox.FlushFannedOut(); // what the members left for after the fan-out: it may wait or run their code
        WebSocketTelemetry.Broadcasts.Add(1);
        WebSocketTelemetry.BroadcastRecipients.Add(result.Sent);
        AddIfAny(WebSocketTelemetry.BroadcastSkipped, result.Skipped);
        AddIfAny(WebSocketTelemetry.BroadcastClosed, result.Closed);
        return result;
    }

    private BroadcastResult FanOutLocked(BroadcastFrame frame)
    {
        int sent = 0, skipped = 0, closed = 0, removed = 0;
        BroadcastInbox[] members = Snapshot(out int count);
        for (int i = 0; i < count; i++)
        {
            BroadcastInbox member = members[i];
            switch (member.Offer(frame, SlowMemberPolicy, _budget))
            {
                case BroadcastOutcome.Sent:
                    sent++;
                    break;
                case BroadcastOutcome.Skipped:
                    skipped++;
                    break;
                case BroadcastOutcome.Closed:
                    closed++;
                    _leaving.Add(member);
                    break;
                default:
                    removed++;
                    _leaving.Add(member);
                    break;
            }
        }

        if (_leaving.Count > 0)
        {
            lock (_membership)
            {
                foreach (BroadcastInbox member in _leaving)
                {
                    RemoveLocked(member);
                }
            }

            _leaving.Clear();
        }

        return new BroadcastResult(sent, skipped, closed, removed);
    }

    private static void AddIfAny(Counter<long> counter, int value)
    {
        if (value > 0)
        {
            counter.Add(value);
        }
    }

    /// <summary>The members as of now; rebuilt (one array) only after the membership changed, so broadcasts to a
    /// steady group allocate nothing per member. Called under the fan-out lock.</summary>
    private BroadcastInbox[] Snapshot(out int count)
    {
        lock (_membership)
        {
            if (_changed)
            {
                _snapshot = _members.Count == 0 ? [] : _members.ToArray();
                _snapshotCount = _members.Count;
                _changed = false;
            }

            count = _snapshotCount;
            return _snapshot;
        }
    }

    private bool RemoveLocked(BroadcastInbox inbox)
    {
        if (!_index.Remove(inbox, out int at))
        {
            return false;
        }

        int last = _members.Count - 1;
        if (at != last)
        {
            BroadcastInbox moved = _members[last];
            _members[at] = moved;
            _index[moved] = at;
        }

        _members.RemoveAt(last);
        _changed = true;
        return true;
    }

    private static BroadcastInbox InboxOf(IWebSocketGroupMember member)
    {
        ArgumentNullException.ThrowIfNull(member);
        return member.BroadcastInbox;
    }
}
