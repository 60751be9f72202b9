namespace WebSocketCodec;

/// <summary>
/// Whether the current thread holds a websocket's output lock (a read loop dispatching frames to its listener) or a
/// group's fan-out lock. Such a thread must never wait for another websocket's lock: that websocket's thread may be
/// waiting for one this thread holds. Sends it makes to other websockets go through their inboxes instead.
/// </summary>
internal static class ThreadLocks
{
    [ThreadStatic]
    private static int t_held;

    /// <summary>Whether this thread holds such a lock now.</summary>
    public static bool Held => t_held > 0;

    /// <summary>This thread took such a lock.</summary>
    public static void Enter() => t_held++;

    /// <summary>This thread let go of such a lock.</summary>
    public static void Exit() => t_held--;
}
