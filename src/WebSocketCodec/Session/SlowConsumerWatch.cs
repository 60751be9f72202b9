namespace WebSocketCodec;

/// <summary>
/// The slow-consumer rule every host applies, by progress rather than by level: a websocket whose output waits for the
/// transport (above its high water mark) is slow only when the peer has taken none of its bytes for
/// <see cref="WebSocketSessionOptions.SlowConsumerTimeout"/>: neither the transport took more, nor (where the
/// transport can see below itself, <see cref="IWebSocketTransport.AcknowledgedBytes"/>) did the peer receive more of
/// what the transport holds. A burst that a healthy reader drains keeps the output
/// busy but moving, and is never taken for a dead reader. The host reports when the output starts and stops waiting,
/// and, whenever its timer fires, a figure that grows when the transport takes bytes; the watch says whether the peer
/// is slow and when to look again (a quarter of the timeout while waiting, so a stall is found between one and one
/// and a quarter timeouts after the last byte the peer took).
/// Thread-safe: <see cref="Waiting"/> and <see cref="Writable"/> may race <see cref="Check"/> (at worst one look
/// counts from a newer figure, a quarter of the timeout late).
/// </summary>
internal struct SlowConsumerWatch
{
    private long _waitingSince; // when the output started waiting, or the last progress since (0: not waiting)
    private long _taken;        // the host's progress figure when last looked at

    /// <summary>Whether the output waits for the transport now.</summary>
    public bool IsWaiting => Volatile.Read(ref _waitingSince) != 0;

    /// <summary>The output started waiting (a second call while waiting changes nothing).</summary>
    /// <param name="now">A <see cref="TimeProvider.GetTimestamp"/> value.</param>
    /// <param name="taken">The host's progress figure now.</param>
    public void Waiting(long now, long taken)
    {
        if (Interlocked.CompareExchange(ref _waitingSince, Math.Max(1, now), 0) == 0)
        {
            Volatile.Write(ref _taken, taken);
        }
    }

    /// <summary>The output is writable again.</summary>
    public void Writable() => Volatile.Write(ref _waitingSince, 0);

    /// <summary>Looks at the progress: the peer took bytes since the last look (the figure grew) restarts the time.
    /// </summary>
    /// <param name="time">The clock.</param>
    /// <param name="timeout">The slow-consumer timeout (zero: never slow).</param>
    /// <param name="taken">A figure that grows only when the transport takes bytes (bytes it took so far).</param>
    /// <param name="next">When to look again: <see cref="Timeout.InfiniteTimeSpan"/> when not waiting or never slow.</param>
    /// <returns>Whether the peer took nothing for the whole timeout.</returns>
    public bool Check(TimeProvider time, TimeSpan timeout, long taken, out TimeSpan next)
    {
        next = Timeout.InfiniteTimeSpan;
        long since = Volatile.Read(ref _waitingSince);
        if (since == 0 || timeout <= TimeSpan.Zero)
        {
            return false;
        }

        long now = time.GetTimestamp();
        long before = Volatile.Read(ref _taken);
        Volatile.Write(ref _taken, taken);
        if (taken > before)
        {
            // The peer is reading: the time without progress starts again now.
            Interlocked.CompareExchange(ref _waitingSince, Math.Max(1, now), since);
            next = Poll(timeout);
            return false;
        }

        TimeSpan left = timeout - time.GetElapsedTime(since, now);
        if (left <= TimeSpan.Zero)
        {
            return true;
        }

        TimeSpan poll = Poll(timeout);
        next = left < poll ? left : poll;
        return false;
    }

    /// <summary>When to look again from now on (see <see cref="Check"/>), without looking at the progress.</summary>
    public TimeSpan NextDue(TimeProvider time, TimeSpan timeout)
    {
        long since = Volatile.Read(ref _waitingSince);
        if (since == 0 || timeout <= TimeSpan.Zero)
        {
            return Timeout.InfiniteTimeSpan;
        }

        TimeSpan left = timeout - time.GetElapsedTime(since);
        TimeSpan poll = Poll(timeout);
        return left < TimeSpan.Zero ? TimeSpan.Zero : left < poll ? left : poll;
    }

    /// <summary>The earlier of two due times (<see cref="Timeout.InfiniteTimeSpan"/> is never).</summary>
    public static TimeSpan Earlier(TimeSpan a, TimeSpan b) =>
        a == Timeout.InfiniteTimeSpan ? b : b == Timeout.InfiniteTimeSpan ? a : a < b ? a : b;

    private static TimeSpan Poll(TimeSpan timeout) => timeout / 4;
}
