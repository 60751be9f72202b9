using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>One websocket after the opening handshake, over any transport a host offers through an
/// <see cref="IWebSocketTransport"/>: the object every host runs and hands you as <c>Driver</c>, to add to a
/// <see cref="WebSocketGroup"/>, watch (<see cref="Completion"/>, <see cref="IsWritable"/>), close or abort. Create one
/// yourself only to run websockets over a transport of your own. It owns everything the websocket does.</summary>
/// <remarks><para>Each read the host hands over is decoded in place (payloads unmasked in the host's memory, no frame
/// object, no allocation) and given to the listener, frame by frame; the protocol's answers (Pong, Close) and the
/// listener's sends are appended to one ordered output and flushed once per read. Inbound and outbound are apart:
/// appending a frame takes a short lock and never waits for the network, the loop never waits on a flush, and the
/// timers (idle, keep-alive, close, slow consumer) always fire. Outbound bytes waiting for the transport count against
/// high and low water marks (<see cref="IsWritable"/>): above the high mark <c>SendAsync</c> waits and
/// <see cref="WebSocketFrameSender.TrySend"/> returns false; a listener that answers what it reads pauses reading while
/// its output waits for the transport. A protocol violation (or a failed listener) fails the connection: one Close with
/// its status, then at once the end of our output where the transport can end one direction
/// (<see cref="IWebSocketTransport.CanHalfClose"/>: TCP FIN, END_STREAM), then the input discarded unparsed (bounded in
/// bytes and time) until the peer's end, and only then is the transport closed, so a reset never erases our
/// Close.</para>
/// <para>A host calls <see cref="Start"/>, then for every read <see cref="Receive(Span{byte})"/> (once per buffer
/// segment) and <see cref="ReadComplete"/>, <see cref="InputEnded"/> when the peer's direction ended, and
/// <see cref="RunTurn"/> when asked (<see cref="IWebSocketTransport.ScheduleTurn"/>): all on its connection's loop, one
/// at a time. Sends, <see cref="CloseAsync"/> and <see cref="Abort"/> may come from any thread.</para></remarks>
public sealed partial class WebSocketDriver : IWebSocketGroupMember, IDisposable
{
    private readonly IWebSocketTransport _transport;
    private readonly DriverOutput _output;
    private readonly WebSocketSession _session;
    private readonly TimeProvider _time;
    // Null until Completion is asked for or the websocket ends: then a TaskCompletionSource (asked for first) or the
    // completed task (ended first). An idle websocket nobody awaits keeps no task.
    private object? _completion;
    private readonly CancellationTokenSource _abortSource = new();

    private ITimer? _timer;
    private int _loopThread;
    private int _stop; // why the websocket was told to end at once: NotStopped, StoppedByAbort, StoppedByTransportLoss
    private int _started;
    private Exception? _error;
    private bool _closeTimedOut;
    private volatile bool _timerDue;
    private bool _armedForClose;
    private bool _reportedWritable = true; // what the listener was told last (only the reporting thread touches it)
    private int _writabilityReporting; // 1 while a thread reports writability changes
    private int _writabilityChanges; // changes seen, reported or not
    private SlowConsumerWatch _slowWatch;
    private bool _slowConsumer;
    private Task? _endingOutput;
    private IWebSocketFrameListener? _listener;
    private Activity? _activity;
    private DriverInbox? _inbox;
    private volatile bool _rearmTimer;

    /// <summary>Creates the websocket for one end of an upgraded connection.</summary>
    /// <param name="transport">The host's port to the connection's bytes.</param>
    /// <param name="role">Which end this is: a server expects masked input, a client masks its output.</param>
    /// <param name="options">Limits and timeouts.</param>
    /// <param name="subprotocol">The negotiated subprotocol, for the application to see.</param>
    public WebSocketDriver(IWebSocketTransport transport, WebSocketRole role, WebSocketSessionOptions? options = null, string? subprotocol = null)
    {
        ArgumentNullException.ThrowIfNull(transport);
        _transport = transport;
        WebSocketSessionOptions settings = options ?? WebSocketSessionOptions.Default;
        // The side buffer is transport memory (as a pipe's segments are), not the session pool's gathered frames and
        // messages: it comes from the shared pool, bounded by the high water mark.
        _output = new DriverOutput(
            transport, settings.OutboundHighWaterMark, settings.OutboundLowWaterMark, System.Buffers.ArrayPool<byte>.Shared, this);
        // Every call into the session happens under the output's lock, so it writes its control frames straight into
        // the output, in order with the application's frames.
        _session = new WebSocketSession(role, settings) { Output = _output };
        _time = _session.Options.TimeProvider ?? TimeProvider.System;
        Subprotocol = subprotocol;
        Sender = new WebSocketFrameSender(this, _output, _session.Encoder);
    }

    /// <summary>Whether outbound bytes waiting for the transport are under the high water mark (after crossing it:
    /// until they drop to the low mark). Sends from other threads wait, and reading pauses, while it is false.</summary>
    public bool IsWritable => _output.IsWritable;

    /// <summary>Outbound bytes appended and not yet taken by the transport (read without a lock: off the loop, an
    /// estimate).</summary>
    public long UnflushedBytes => _output.UnflushedRelaxed;

    /// <summary>Raised (on the thread that saw it, never under a lock) when <see cref="IsWritable"/> changes.</summary>
    public event Action<WebSocketDriver, bool>? WritabilityChanged;

    /// <summary>Turns permessage-deflate on as the handshake negotiated it (before <see cref="Start"/>): the peer's
    /// compressed messages are inflated before the listener sees them, and whole messages sent with <c>Send</c>,
    /// <c>TrySend</c> or <c>SendAsync</c> are compressed (from <see cref="PerMessageDeflateOptions.Threshold"/> bytes
    /// up).</summary>
    /// <param name="parameters">What the handshake settled.</param>
    /// <param name="options">This side's level and threshold.</param>
    /// <exception cref="InvalidOperationException">The websocket is running already.</exception>
    public void EnablePerMessageDeflate(DeflateParameters parameters, PerMessageDeflateOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        if (IsStarted)
        {
            throw new InvalidOperationException("permessage-deflate must be turned on before the websocket runs.");
        }

        _session.EnablePerMessageDeflate(parameters);
        Sender.EnablePerMessageDeflate(parameters, options);
    }

    /// <summary>The permessage-deflate parameters in force, or null when the extension was not negotiated.</summary>
    public DeflateParameters? Deflate => _session.Deflate;

    /// <summary>Which end this is.</summary>
    public WebSocketRole Role => _session.Role;

    /// <summary>The limits and timeouts in force.</summary>
    public WebSocketSessionOptions Options => _session.Options;

    /// <summary>The negotiated subprotocol, if any.</summary>
    public string? Subprotocol { get; }

    /// <summary>The protocol state.</summary>
    public WebSocketSessionState State => _session.State;

    /// <summary>Sends frames on this websocket.</summary>
    public WebSocketFrameSender Sender { get; }

    /// <summary>Completes when the websocket has ended and its transport's output ended, with how it ended.</summary>
    public Task<WebSocketCloseInfo> Completion
    {
        get
        {
            object? current = Volatile.Read(ref _completion);
            if (current is null)
            {
                var source = new TaskCompletionSource<WebSocketCloseInfo>(TaskCreationOptions.RunContinuationsAsynchronously);
                current = Interlocked.CompareExchange(ref _completion, source, null) ?? source;
            }

            return current as Task<WebSocketCloseInfo> ?? ((TaskCompletionSource<WebSocketCloseInfo>)current).Task;
        }
    }

    /// <summary>Whether the websocket has ended and reported it (<see cref="Completion"/> is complete).</summary>
    private bool IsComplete => Volatile.Read(ref _completion) switch
    {
        Task<WebSocketCloseInfo> => true,
        TaskCompletionSource<WebSocketCloseInfo> source => source.Task.IsCompleted,
        _ => false,
    };

    /// <summary>Completes <see cref="Completion"/> once, whether or not anyone asked for it yet.</summary>
    private void SetComplete(WebSocketCloseInfo info)
    {
        object? current = Volatile.Read(ref _completion);
        if (current is null)
        {
            current = Interlocked.CompareExchange(ref _completion, Task.FromResult(info), null);
        }

        (current as TaskCompletionSource<WebSocketCloseInfo>)?.TrySetResult(info);
    }

    /// <summary>Whether <see cref="Start"/> was called.</summary>
    public bool IsStarted => Volatile.Read(ref _started) != 0;

    /// <summary>Whether a timer ended the websocket (keep-alive, idle or close timeout), whatever else happened.</summary>
    public bool TimedOut => _session.Timeout is not null || _closeTimedOut;

    internal bool IsOnReadLoop => _loopThread == Environment.CurrentManagedThreadId;

    BroadcastInbox IWebSocketGroupMember.BroadcastInbox => Inbox;

    /// <summary>The queue of frames waiting for this websocket's own thread: broadcasts, and sends from other websockets'
    /// listeners.</summary>
    internal DriverInbox Inbox =>
        Volatile.Read(ref _inbox) ?? Interlocked.CompareExchange(ref _inbox, new DriverInbox(this, _output), null) ?? _inbox;

    /// <summary>Appends what the inbox holds before a direct append (under the output's lock).</summary>
    /// <returns>Whether data may still be sent: the drain may have started a slow member's close (its Close is then
    /// the last frame).</returns>
    internal bool DrainInboxLocked()
    {
        Volatile.Read(ref _inbox)?.DrainLocked();
        return CanSend;
    }

    /// <summary>Whether the application may send data frames: open, no Close asked for, the output up.</summary>
    internal bool CanSend => CanAppend && !_closeRequested;

    /// <summary>Whether data frames may still be appended (what was queued before a Close was asked for goes ahead of
    /// it).</summary>
    internal bool CanAppend => _session.State == WebSocketSessionState.Open && !_output.IsEnded && !Stopped;

    /// <summary>Starts the websocket with its listener: from now on the host hands over what it reads. Call it on the
    /// loop, before the first <see cref="Receive(Span{byte})"/>.</summary>
    /// <param name="listener">Receives the data frames, Pongs, writability changes and the end.</param>
    /// <exception cref="InvalidOperationException">The websocket was started already.</exception>
    public void Start(IWebSocketFrameListener listener)
    {
        ArgumentNullException.ThrowIfNull(listener);
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            throw new InvalidOperationException("The websocket is already running.");
        }

        Volatile.Write(ref _listener, listener);
        var kind = Role == WebSocketRole.Server ? ActivityKind.Server : ActivityKind.Client;
        _activity = WebSocketTelemetry.Source.StartActivity("websocket", kind);
        _activity?.SetTag("websocket.subprotocol", Subprotocol);
        WebSocketTelemetry.Connections.Add(1);
        WebSocketTelemetry.ActiveConnections.Add(1);
        lock (_output.Sync)
        {
            ArmTimer();
        }
    }

    /// <summary>Closes: sends a Close with <paramref name="status"/> (unless a Close was sent already) and completes when
    /// the websocket has ended: the peer's Close arrived and the transport closed, or the close timeout passed (then the
    /// transport is closed anyway), or something else ended it first. Safe from any thread. A listener callback must not
    /// block on the returned task: the peer's Close is read by the loop that runs the callback.</summary>
    /// <param name="status">The close status.</param>
    /// <param name="reason">The close reason (at most 123 bytes of UTF-8).</param>
    /// <param name="cancellationToken">Stops waiting (the Close stays sent and the handshake goes on).</param>
    /// <returns>How the websocket ended (the same as <see cref="Completion"/>).</returns>
    public Task<WebSocketCloseInfo> CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        if (IsComplete)
        {
            return Completion;
        }

        _closeRequested = true; // later sends are refused; those queued before go ahead of the Close
        if (_output.TryEnter()) // on the loop it holds the lock already (its dispatch), and flushes after the read
        {
            if (StartCloseEntered(status, reason) && !IsOnReadLoop && !Stopped)
            {
                _output.Flush();
            }
        }
        else
        {
            _ = CloseAfterReadAsync(status, reason); // the loop dispatches a read: the Close goes right after it
        }

        return cancellationToken.CanBeCanceled ? Completion.WaitAsync(cancellationToken) : Completion;
    }

    private volatile bool _closeRequested;

    /// <summary>Starts the close once the loop's dispatch in progress has ended (this never waits for a listener).</summary>
    private async Task CloseAfterReadAsync(CloseStatus status, string? reason)
    {
        do
        {
            await _output.ReadEndedAsync().ConfigureAwait(false);
        }
        while (!_output.TryEnter());

        if (StartCloseEntered(status, reason) && !Stopped)
        {
            _output.Flush();
        }
    }

    /// <summary>Sends our Close behind what waits in the queue; the caller took the output's lock (released here).</summary>
    /// <returns>Whether this started the close (flush after, off the loop).</returns>
    private bool StartCloseEntered(CloseStatus status, string? reason)
    {
        try
        {
            DrainInboxLocked(); // messages sent before the Close was asked for go ahead of it
            bool started = _session.StartClose(status, reason);
            if (started)
            {
                ArmTimer();
            }

            return started;
        }
        finally
        {
            Monitor.Exit(_output.Sync);
        }
    }

    /// <summary>Ends the websocket at once, without a close handshake (any thread).</summary>
    public void Abort()
    {
        if (IsComplete)
        {
            return;
        }

        EndNow(StoppedByAbort);
    }

    /// <summary>The host learnt, outside the loop, that the transport is gone (a server's connection closed or
    /// aborted, an HTTP/2 stream reset): the websocket ends at once, as it does when its loop sees the peer's end
    /// (<see cref="WebSocketEndReason.TransportClosed"/> unless something else ended it first), not as an
    /// application's abort. Any thread.</summary>
    public void TransportLost()
    {
        if (IsComplete)
        {
            return;
        }

        EndNow(StoppedByTransportLoss);
    }

    private const int NotStopped = 0;
    private const int StoppedByAbort = 1;
    private const int StoppedByTransportLoss = 2;

    /// <summary>Whether the websocket was told to end at once (an abort, or the host saw the transport go).</summary>
    private bool Stopped => Volatile.Read(ref _stop) != NotStopped;

    /// <summary>Whether the first thing that told it to end at once was an abort (not a lost transport).</summary>
    private bool StoppedByApplication => Volatile.Read(ref _stop) == StoppedByAbort;

    /// <summary>Whether the first thing that told it to end at once was the host's word that the transport is gone.</summary>
    private bool TransportWasLost => Volatile.Read(ref _stop) == StoppedByTransportLoss;

    private void EndNow(int cause)
    {
        if (Interlocked.CompareExchange(ref _stop, cause, NotStopped) != NotStopped)
        {
            return; // told already: the first cause stands
        }

        try
        {
            _abortSource.Cancel();
        }
        catch (ObjectDisposedException)
        {
            // Ended in between.
        }

        _output.CancelPendingFlush();
        _transport.ScheduleTurn();
    }

    /// <summary>Aborts the websocket if it runs (it returns its buffers as it ends); returns its buffers if it never
    /// started.</summary>
    public void Dispose()
    {
        Abort();
        if (Volatile.Read(ref _started) == 0)
        {
            _session.Dispose();
        }
    }

    internal void OnWritabilityChanged(bool writable)
    {
        if ((writable || _output.IsEnded) && Volatile.Read(ref _readPaused) != 0)
        {
            _transport.ScheduleTurn();
        }

        // The thread that filled the output and the one whose flush drained it report at once, in either order: one
        // thread at a time reports, always the output's state as it is then, and goes on while changes keep coming, so
        // the listener hears every lasting change in order and ends with the true state. No thread ever waits here.
        Interlocked.Increment(ref _writabilityChanges);
        while (Interlocked.CompareExchange(ref _writabilityReporting, 1, 0) == 0)
        {
            int seen = Volatile.Read(ref _writabilityChanges);
            bool now = _output.IsWritable;
            if (now != _reportedWritable)
            {
                _reportedWritable = now;
                Report(now);
            }

            Interlocked.Exchange(ref _writabilityReporting, 0);
            if (Volatile.Read(ref _writabilityChanges) == seen)
            {
                return; // nothing new: any later change is reported by its own thread
            }
        }
    }

    private void Report(bool writable)
    {
        if (!writable)
        {
            _slowWatch.Waiting(_time.GetTimestamp(), PeerProgress);
        }
        else
        {
            _slowWatch.Writable();
        }

        if (_session.Options.SlowConsumerTimeout > TimeSpan.Zero && !writable)
        {
            if (_output.TryEnter())
            {
                try
                {
                    ArmTimer();
                }
                finally
                {
                    Monitor.Exit(_output.Sync);
                }
            }
            else
            {
                _rearmTimer = true; // the loop dispatches a read: it arms the timer at its next turn
                _transport.ScheduleTurn();
            }
        }

        Volatile.Read(ref _listener)?.OnWritabilityChanged(writable);
        WritabilityChanged?.Invoke(this, writable);
    }

    internal void OnFlushEnded()
    {
        if (Volatile.Read(ref _readPaused) != 0)
        {
            _transport.ScheduleTurn();
        }

        Volatile.Read(ref _inbox)?.OutputDrained(); // group messages that waited for the output go next
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckOnReadLoop() => SendGuard.OnLoop(
        IsOnReadLoop, "Synchronous sends are for the read loop (listener callbacks); from other threads use SendAsync or SendBulkAsync.");

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckCanSend() => SendGuard.CanSend(CanSend, closing: _session.State != WebSocketSessionState.Open || _closeRequested);
}
