namespace WebSocketCodec;

/// <summary>
/// The port a host implements so that a <see cref="WebSocketDriver"/> can run a websocket over its transport: the driver
/// owns every behaviour of the websocket (framing, the close handshake, timers, backpressure, the senders, groups,
/// telemetry); the host only moves bytes. A host hands received bytes to <see cref="WebSocketDriver.Receive(Span{byte})"/>
/// and ends each read with <see cref="WebSocketDriver.ReadComplete"/>, on its connection's loop (one thread at a time,
/// in order); the driver calls back through this interface.
/// </summary>
/// <remarks>
/// Threads: the output members (<see cref="GetOutputMemory"/>, <see cref="AdvanceOutput"/>, <see cref="FlushAsync"/>,
/// <see cref="CancelPendingFlush"/>) may be called from any thread, but never two at once: the driver serializes them
/// (appends under its output lock, one flush at a time). <see cref="PauseReading"/>, <see cref="ResumeReading"/> and
/// <see cref="StopReading"/> are called on the loop, from inside one of the driver's loop methods.
/// <see cref="ScheduleTurn"/> and <see cref="Abort"/> may be called from any thread.
/// </remarks>
public interface IWebSocketTransport
{
    /// <summary>Memory to write outbound bytes into, at least <paramref name="sizeHint"/> bytes long (any length when
    /// 0). It stays the driver's until <see cref="AdvanceOutput"/>.</summary>
    /// <param name="sizeHint">The bytes the driver needs at least.</param>
    /// <returns>The memory.</returns>
    Memory<byte> GetOutputMemory(int sizeHint);

    /// <summary>Commits <paramref name="count"/> bytes written at the start of the memory <see cref="GetOutputMemory"/>
    /// gave last: they go out, in order, with the next <see cref="FlushAsync"/>.</summary>
    /// <param name="count">The bytes written.</param>
    void AdvanceOutput(int count);

    /// <summary>Sends what was committed. Completes when the transport has taken the bytes (it may hold them back while
    /// the peer does not read: that is the backpressure the driver measures).</summary>
    /// <returns>True when the bytes were taken; false when the transport takes no more (closed, failed, or the flush was
    /// cancelled).</returns>
    ValueTask<bool> FlushAsync();

    /// <summary>Makes a pending <see cref="FlushAsync"/> return false at once (a timer gave the peer up).</summary>
    void CancelPendingFlush();

    /// <summary>Whether <see cref="EndOutputAsync"/> with a half-close ends our direction alone while the peer's stays
    /// readable (a TCP FIN, an HTTP/2 stream's END_STREAM); false when the transport ends both directions at once.</summary>
    bool CanHalfClose { get; }

    /// <summary>Called right before the flush that carries the last bytes of our direction (the Close of a failed
    /// connection), with how many bytes are still to be taken: a transport that cannot see when its writes reach the
    /// network may take its bearings here.</summary>
    /// <param name="bytes">The bytes appended and not yet taken by the transport.</param>
    void OnOutputEnding(long bytes);

    /// <summary>Ends our direction once every committed byte was flushed (or the flush was given up): with
    /// <paramref name="halfClose"/> and <see cref="CanHalfClose"/>, in order and alone (FIN, END_STREAM); otherwise the
    /// transport's output is completed (which may end the connection). Called once.</summary>
    /// <param name="halfClose">Whether the peer's direction must stay readable (the websocket still drains it).</param>
    /// <returns>Completes when the direction has ended.</returns>
    ValueTask EndOutputAsync(bool halfClose);

    /// <summary>Tears the transport down at once: a peer that does not read even our Close is given up. Any thread.</summary>
    void Abort();

    /// <summary>A count that grows whenever the peer receives bytes the transport already took from us (a TCP
    /// socket's bytes acknowledged by the peer, from the kernel), or -1 (the default) where the transport cannot see
    /// below itself. The slow-consumer rule counts its growth as the peer's progress while a flush waits: a slow reader
    /// drains the kernel's buffers (megabytes on a fast link) for seconds before the transport takes our next bytes,
    /// and must not be taken for one that stopped. Any thread; called only while the output waits.</summary>
    long AcknowledgedBytes => -1;

    /// <summary>Stops handing received bytes to the driver until <see cref="ResumeReading"/> (the driver's output waits
    /// for the peer, or the listener holds the loop). A push host stops reading from the network; a pull host stops
    /// issuing reads. Bytes already received may still be handed over.</summary>
    void PauseReading();

    /// <summary>Hands received bytes to the driver again.</summary>
    void ResumeReading();

    /// <summary>The websocket has ended: read no more and release the input. No driver method but
    /// <see cref="WebSocketDriver.RunTurn"/> (which then does nothing) is called after this.</summary>
    void StopReading();

    /// <summary>Asks for one call of <see cref="WebSocketDriver.RunTurn"/> on the loop, soon and never inline (a timer
    /// is due, the listener's wait ended, the websocket was aborted, the output drained). Any thread; requests that come
    /// before the turn runs may be merged into one.</summary>
    void ScheduleTurn();

    /// <summary>The websocket has ended, its output too, and its listener heard of it: called once, right before
    /// <see cref="WebSocketDriver.Completion"/> completes, on whichever thread finished it. A host that counts its
    /// websockets or frees the connection at the end learns it here without a continuation on that task. Must not
    /// throw.</summary>
    /// <param name="info">How the websocket ended.</param>
    void OnEnded(WebSocketCloseInfo info)
    {
    }
}
