namespace WebSocketCodec;

// Counters for tests: what the loop and the timer did, so a test can prove that something did NOT happen (a frame
// not read, a timer not fired) from the code's own state instead of waiting to see whether it happens.
public sealed partial class WebSocketDriver
{
    private int _listenerHolds;
    private volatile bool _heldByListener;
    private int _timerFirings;

    /// <summary>How many times the loop waited for its listener's <c>OnReadCompleteAsync</c> (a full message
    /// queue holding it): the wait had not completed when the loop came to it.</summary>
    internal int ListenerHolds => Volatile.Read(ref _listenerHolds);

    /// <summary>Whether the loop is waiting for its listener now: it reads nothing until the wait ends. While this
    /// stays true and <see cref="ListenerHolds"/> unchanged, the loop has read nothing in between.</summary>
    internal bool IsHeldByListener => _heldByListener;

    /// <summary>How many times the timer fired (keep-alive, idle, close and slow-consumer deadlines): with a fake
    /// clock, a timer that was not due has not fired once the clock was advanced.</summary>
    internal int TimerFirings => Volatile.Read(ref _timerFirings);

    /// <summary>The loop is about to wait for its listener, whose wait has not completed.</summary>
    private void OnListenerHolds()
    {
        Interlocked.Increment(ref _listenerHolds);
        _heldByListener = true;
    }
}
