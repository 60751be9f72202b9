namespace WebSocketCodec.Broadcast.Server;

/// <summary>The websockets of a loop variant: joined and left under a lock, read by the broadcast loop as an array that
/// is rebuilt only after a change (so a steady set costs the loop nothing).</summary>
internal sealed class MemberList<T>
    where T : class
{
    private readonly object _sync = new();
    private readonly HashSet<T> _members = new(ReferenceEqualityComparer.Instance);
    private T[] _snapshot = [];
    private bool _changed;

    public int Count
    {
        get
        {
            lock (_sync)
            {
                return _members.Count;
            }
        }
    }

    public void Add(T member)
    {
        lock (_sync)
        {
            _changed |= _members.Add(member);
        }
    }

    public void Remove(T member)
    {
        lock (_sync)
        {
            _changed |= _members.Remove(member);
        }
    }

    public T[] Snapshot()
    {
        lock (_sync)
        {
            if (_changed)
            {
                _snapshot = [.. _members];
                _changed = false;
            }

            return _snapshot;
        }
    }
}
