namespace WebSocketCodec;

/// <summary>
/// The memory that group messages waiting for their members may hold, all groups and members together: the bound on
/// a burst's memory that does not close a member for being behind while its peer still reads. A message queued for a
/// member (its output above the high water mark) counts once, its pooled buffer, however many members hold it, plus
/// <see cref="ReferenceBytes"/> for each member that holds it. When queuing a message would pass <see cref="Limit"/>,
/// a <see cref="SlowMemberPolicy.Close"/> group closes members with 1008 "slow consumer", the largest backlog (queued
/// messages and unsent output) first, until the budget is back under 15/16 of its limit; a
/// <see cref="SlowMemberPolicy.Skip"/> group skips the message for that member instead. A member that is merely behind
/// is otherwise closed only by its slow-consumer timeout, when its peer takes no byte for that long.
/// </summary>
/// <remarks>Groups share <see cref="Shared"/> unless given one of their own. Thread-safe. A message is counted against
/// the budget of the group that first queued it, also when queued for members of other groups.</remarks>
public sealed class BroadcastBudget
{
    /// <summary>What one queued reference to a message costs a member (a slot of its queue).</summary>
    public const int ReferenceBytes = 16;

    private static BroadcastBudget? s_shared;

    private readonly object _evicting = new();
    private readonly HashSet<BroadcastInbox> _members = new(ReferenceEqualityComparer.Instance); // inboxes that ever queued
    private long _limit;
    private long _queued;
    private long _peak;
    private long _closed;

    /// <summary>Creates a budget of <paramref name="limit"/> bytes.</summary>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="limit"/> is not positive.</exception>
    public BroadcastBudget(long limit)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(limit);
        _limit = limit;
    }

    /// <summary>The process's budget, which every group uses unless given one: a quarter of the memory the GC may use
    /// (<see cref="GCMemoryInfo.TotalAvailableMemoryBytes"/>: the machine's memory, a container's limit, or
    /// <c>DOTNET_GCHeapHardLimit</c>), so it scales with what the process can hold. Set its <see cref="Limit"/> at
    /// start to choose another.</summary>
    public static BroadcastBudget Shared =>
        Volatile.Read(ref s_shared) ?? Interlocked.CompareExchange(ref s_shared, new BroadcastBudget(DefaultLimit()), null) ?? s_shared!;

    /// <summary>The most bytes queued messages may hold (see the type's summary for what counts).</summary>
    /// <exception cref="ArgumentOutOfRangeException">Set to a value that is not positive.</exception>
    public long Limit
    {
        get => Volatile.Read(ref _limit);
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
            Volatile.Write(ref _limit, value);
        }
    }

    /// <summary>Bytes queued messages hold now.</summary>
    public long QueuedBytes => Volatile.Read(ref _queued);

    /// <summary>The most bytes queued messages held at once since the budget was made.</summary>
    public long PeakQueuedBytes => Volatile.Read(ref _peak);

    /// <summary>How many members the budget closed (or had closed) to stay within its limit.</summary>
    public long MembersClosed => Volatile.Read(ref _closed);

    /// <summary>How many members the budget can find (tests: an ended member is forgotten).</summary>
    internal int RegisteredCount
    {
        get
        {
            lock (_members)
            {
                return _members.Count;
            }
        }
    }

    /// <summary>The default limit: a quarter of what the GC may use, 1 GiB when the runtime does not say.</summary>
    internal static long DefaultLimit()
    {
        long available = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        return available > 0 ? Math.Max(available / 4, 1024 * 1024) : 1024L * 1024 * 1024;
    }

    /// <summary>Whether <paramref name="bytes"/> more would pass the limit.</summary>
    internal bool WouldPass(long bytes) => Volatile.Read(ref _queued) + bytes > Volatile.Read(ref _limit);

    /// <summary>Counts bytes in (positive) or out (negative).</summary>
    internal void Add(long bytes)
    {
        long now = Interlocked.Add(ref _queued, bytes);
        if (bytes > 0)
        {
            long peak = Volatile.Read(ref _peak);
            while (now > peak)
            {
                long seen = Interlocked.CompareExchange(ref _peak, now, peak);
                if (seen == peak)
                {
                    break;
                }

                peak = seen;
            }
        }
    }

    /// <summary>Remembers an inbox that queued a message, so that <see cref="MakeRoom"/> can find it.</summary>
    internal void Register(BroadcastInbox inbox)
    {
        lock (_members)
        {
            _members.Add(inbox);
        }
    }

    /// <summary>Forgets an inbox (its websocket ended).</summary>
    internal void Unregister(BroadcastInbox inbox)
    {
        lock (_members)
        {
            _members.Remove(inbox);
        }
    }

    /// <summary>Closes members, the largest backlog first, until <paramref name="needed"/> more bytes leave the budget
    /// under 15/16 of its limit (so a flood does not close one member per message), or no member has a backlog left.
    /// Their queues are released at once; each is closed on its own thread.</summary>
    /// <param name="needed">The bytes about to be queued.</param>
    /// <param name="asking">The member they would be queued for.</param>
    /// <returns>Whether they may be queued: false when <paramref name="asking"/> was closed, or no room was made.</returns>
    internal bool MakeRoom(long needed, BroadcastInbox asking)
    {
        lock (_evicting)
        {
            if (!WouldPass(needed))
            {
                return true;
            }

            (long Backlog, BroadcastInbox Inbox)[] candidates;
            lock (_members)
            {
                _members.RemoveWhere(static inbox => inbox.IsGone);
                candidates = new (long, BroadcastInbox)[_members.Count];
                int i = 0;
                foreach (BroadcastInbox inbox in _members)
                {
                    candidates[i++] = (inbox.Backlog, inbox);
                }
            }

            Array.Sort(candidates, static (a, b) => b.Backlog.CompareTo(a.Backlog));
            long target = Volatile.Read(ref _limit) - (Volatile.Read(ref _limit) / 16);
            bool askingClosed = false;
            foreach ((long backlog, BroadcastInbox inbox) in candidates)
            {
                if (backlog == 0 || Volatile.Read(ref _queued) + needed <= target)
                {
                    break;
                }

                if (inbox.TryEvict())
                {
                    // Counted by each of its groups as closed when it next offers it a message.
                    Interlocked.Increment(ref _closed);
                    askingClosed |= ReferenceEquals(inbox, asking);
                }
            }

            return !askingClosed && !WouldPass(needed);
        }
    }

    /// <summary>Counts a member that was closed because no room could be made for it.</summary>
    internal void CountClosed() => Interlocked.Increment(ref _closed);
}
