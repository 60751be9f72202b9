using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// One websocket over an <see cref="IDuplexPipe"/> after the opening handshake: the read loop, the outbound side, and
/// the closing sequence. Each <c>ReadAsync</c> hands every whole frame in the buffer to the listener (payloads unmasked
/// in place, no frame object, no allocation), then one <c>AdvanceTo</c>, then one flush of everything the listener and
/// the protocol wrote. Inbound and outbound are apart: appending a frame takes a short lock and never waits for the
/// network, the read loop never waits on a flush, and the timers (idle, keep-alive, close, slow consumer) always fire.
/// Outbound bytes waiting for the transport count against high and low water marks (<see cref="IsWritable"/>): above
/// the high mark <c>SendAsync</c> waits and <see cref="WebSocketFrameSender.TrySend"/> returns false; a listener that
/// answers what it reads pauses the loop while its output waits for the transport. A protocol violation (or a failed
/// listener) fails the connection: one Close with its status, then at once the end of our output on a transport that
/// can end one direction (<see cref="IHalfClosingDuplexPipe"/>: TCP FIN, END_STREAM), then the input discarded unparsed
/// (bounded in bytes and time) until the peer's FIN or END_STREAM, and only then is the transport closed, so a reset
/// never erases our Close.
/// </summary>
public sealed partial class WebSocketConnection : IDisposable, IAsyncDisposable, IWebSocketGroupMember
{
    private readonly IDuplexPipe _transport;
    private readonly WebSocketOutput _output;
    private readonly WebSocketSession _session;
    private readonly TimeProvider _time;
    private readonly TaskCompletionSource<WebSocketCloseInfo> _completion =
        new(TaskCreationOptions.RunContinuationsAsynchronously);

    private ITimer? _timer;
    private int _loopThread;
    private volatile bool _aborted;
    private int _started;
    private readonly CancellationTokenSource _abortSource = new();
    private Exception? _error;
    private bool _closeTimedOut;
    private volatile bool _timerDue;
    private bool _armedForClose;
    private readonly LoopSignal _wake = new();
    private int _reportedWritable = 1;
    private int _loopWaiting;
    private SlowConsumerWatch _slowWatch;
    private bool _slowConsumer;
    private Task? _endingOutput;
    private IWebSocketFrameListener? _listener;

    /// <summary>Creates the websocket for one end of an upgraded connection.</summary>
    /// <param name="transport">The connection's bytes after the handshake (frames that came with the handshake
    /// included).</param>
    /// <param name="role">Which end this is: a server expects masked input, a client masks its output.</param>
    /// <param name="options">Limits and timeouts.</param>
    /// <param name="subprotocol">The negotiated subprotocol, for the application to see.</param>
    public WebSocketConnection(IDuplexPipe transport, WebSocketRole role, WebSocketSessionOptions? options = null, string? subprotocol = null)
    {
        ArgumentNullException.ThrowIfNull(transport);
        _transport = transport;
        WebSocketSessionOptions settings = options ?? WebSocketSessionOptions.Default;
        _output = new WebSocketOutput(
            transport.Output, settings.OutboundHighWaterMark, settings.OutboundLowWaterMark, OnWritabilityChanged, OnFlushEnded);
        // Every call into the session happens under the output's lock, so it writes its control frames straight into
        // the output, in order with the application's frames.
        _session = new WebSocketSession(role, settings) { Output = _output };
        _time = _session.Options.TimeProvider ?? TimeProvider.System;
        Subprotocol = subprotocol;
        Sender = new WebSocketFrameSender(this, _output, _session.Encoder);
    }

    /// <summary>Whether outbound bytes waiting for the transport are under the high water mark (after crossing it:
    /// until they drop to the low mark). Sends from other threads wait, and the read loop pauses, while it is false.</summary>
    public bool IsWritable => _output.IsWritable;

    /// <summary>Outbound bytes appended and not yet taken by the transport.</summary>
    public long UnflushedBytes => _output.Unflushed;

    /// <summary>Raised (on the thread pool) when <see cref="IsWritable"/> changes.</summary>
    public event Action<WebSocketConnection, bool>? WritabilityChanged;

    /// <summary>
    /// How to tear the connection down when the output is stuck (a peer that stopped reading, given up by a timer): for
    /// example Kestrel's <c>ConnectionContext.Abort</c> or <c>HttpContext.Abort</c>, or disposing a client's stream.
    /// Without it, a stuck flush is cancelled and the transport's writer completed, which may leave the socket open
    /// until the peer reads.
    /// </summary>
    public Action? TransportAbort { get; set; }

    /// <summary>Turns permessage-deflate on as the handshake negotiated it (before <see cref="RunAsync(IWebSocketFrameListener, CancellationToken)"/>):
    /// the peer's compressed messages are inflated before the listener sees them, and whole messages sent with
    /// <c>Send</c>, <c>TrySend</c> or <c>SendAsync</c> are compressed (from <see cref="PerMessageDeflateOptions.Threshold"/>
    /// bytes up). The hosts call it for you; call it yourself only after a handshake of your own over a raw transport
    /// (<see cref="WebSocketAcceptResult.Deflate"/>).</summary>
    /// <param name="parameters">What the handshake settled.</param>
    /// <param name="options">This side's level and threshold.</param>
    /// <exception cref="InvalidOperationException">The websocket is running already, or the extension is on.</exception>
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

    /// <summary>Completes when the websocket has ended and the transport is closed.</summary>
    public Task<WebSocketCloseInfo> Completion => _completion.Task;

    /// <summary>Whether the read loop was started (by <c>RunAsync</c>).</summary>
    public bool IsStarted => Volatile.Read(ref _started) != 0;

    /// <summary>Whether a timer ended the websocket (keep-alive, idle or close timeout), whatever else happened.</summary>
    internal bool TimedOut => _session.Timeout is not null || _closeTimedOut;

    internal bool IsOnReadLoop => _loopThread == Environment.CurrentManagedThreadId;

    private ConnectionInbox? _inbox;

    BroadcastInbox IWebSocketGroupMember.BroadcastInbox => Inbox;

    /// <summary>The queue of frames waiting for this websocket's own thread: broadcasts, and sends from other websockets'
    /// listeners.</summary>
    internal ConnectionInbox Inbox =>
        Volatile.Read(ref _inbox) ?? Interlocked.CompareExchange(ref _inbox, new ConnectionInbox(this, _output), null) ?? _inbox;

    /// <summary>Appends what the inbox holds before a direct append (under the output's lock).</summary>
    /// <returns>Whether data may still be sent: the drain may have started a slow member's close (its Close is then
    /// the last frame).</returns>
    internal bool DrainInboxLocked()
    {
        Volatile.Read(ref _inbox)?.DrainLocked();
        return CanSend;
    }

    /// <summary>Whether the calling thread holds another websocket's lock (its read loop, dispatching) or a group's
    /// fan-out lock: waiting for this one's could deadlock with this one's loop waiting for those.</summary>
    internal bool IsOnOtherReadLoop => ThreadLocks.Held && !IsOnReadLoop;

    internal bool CanSend => _session.State == WebSocketSessionState.Open && !_output.IsEnded && !_aborted;

    /// <summary>Runs the callbacks API: hands <paramref name="listenerFactory"/> the frame sender, then reads until the
    /// websocket ends, handing data frames to the listener it returned.</summary>
    /// <param name="listenerFactory">Given <see cref="Sender"/>, returns the listener of this websocket.</param>
    /// <param name="cancellationToken">Cancelling aborts the websocket.</param>
    /// <returns>How the websocket ended.</returns>
    public Task<WebSocketCloseInfo> RunAsync(
        Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(listenerFactory);
        return RunAsync(listenerFactory(Sender), cancellationToken);
    }

    /// <summary>Reads until the websocket ends, handing data frames to <paramref name="listener"/>; then closes the
    /// transport. Cancelling aborts the websocket (for a graceful end call <see cref="CloseAsync"/>).</summary>
    /// <param name="listener">Receives the data frames, writability changes and the end.</param>
    /// <param name="cancellationToken">Cancelling aborts the websocket.</param>
    /// <returns>How the websocket ended (also reported to <see cref="IWebSocketFrameListener.OnClose"/>).</returns>
    public async Task<WebSocketCloseInfo> RunAsync(IWebSocketFrameListener listener, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(listener);
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            throw new InvalidOperationException("The websocket is already running.");
        }

        Volatile.Write(ref _listener, listener);

        var kind = Role == WebSocketRole.Server ? ActivityKind.Server : ActivityKind.Client;
        using Activity? activity = WebSocketTelemetry.Source.StartActivity("websocket", kind);
        activity?.SetTag("websocket.subprotocol", Subprotocol);
        WebSocketTelemetry.Connections.Add(1);
        WebSocketTelemetry.ActiveConnections.Add(1);
        using CancellationTokenRegistration registration = cancellationToken.UnsafeRegister(
            static state => ((WebSocketConnection)state!).Abort(), this);
        try
        {
            ArmTimer();
            await ReadLoopAsync(listener).ConfigureAwait(false);
        }
        catch (Exception error) when (_session.IsDraining && error is IOException or OperationCanceledException or ObjectDisposedException
            or System.Net.Sockets.SocketException)
        {
            // The connection was failed and our output ended: the drain waits only for the transport's end, and a reset
            // (or the abort a host makes of the peer's FIN) is that end, not a new failure.
            _ = error;
        }
        catch (Exception error)
        {
            // A transport error, or the one an abort provokes: either way the websocket ends here and reports it.
            _error ??= _aborted ? new OperationCanceledException("The websocket was aborted.", error) : error;
        }
        finally
        {
            lock (_output.Sync)
            {
                _session.Dispose(); // returns a partly gathered frame's buffer and permessage-deflate's inflate buffers
            }

            _timer?.Dispose();
            await _transport.Input.CompleteAsync().ConfigureAwait(false);
            await EndOutputAsync(halfCloseOnly: false).ConfigureAwait(false);
            Volatile.Read(ref _inbox)?.Abandon(); // group frames still queued go back to their pool
            WebSocketTelemetry.ActiveConnections.Add(-1);
        }

        // An abort after the connection was failed (Kestrel aborts a request when the peer's FIN ends the connection's
        // input) ends the drain as the transport's end does: the violation or the failed listener stays the cause.
        bool aborted = _aborted && !_session.IsDraining;
        if (aborted && _error is null && _session.ReceivedCloseStatus is null)
        {
            _error = new OperationCanceledException("The websocket was aborted.");
        }

        var info = WebSocketCloseInfo.From(_session, _closeTimedOut, _slowConsumer, aborted, _error);
        Report(info, activity);
        try
        {
            listener.OnClose(info);
        }
        finally
        {
            _completion.TrySetResult(info);
        }

        return info;
    }

    /// <summary>Starts the close handshake: sends a Close with <paramref name="status"/> and waits until it is flushed
    /// (the peer's answer is awaited by the read loop within the close timeout; <see cref="Completion"/> then
    /// completes). Does nothing if a Close was sent already. Safe from any thread and from a listener callback.</summary>
    public async ValueTask CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        if (IsOnOtherReadLoop)
        {
            await Task.Yield(); // another websocket's listener: take this one's lock from the thread pool
        }

        bool started;
        lock (_output.Sync)
        {
            started = _session.StartClose(status, reason);
            if (started)
            {
                ArmTimer();
            }
        }

        if (started && !IsOnReadLoop && !_aborted)
        {
            // On the loop, the loop flushes after this read; elsewhere flush now.
            _output.Flush();
            Task flushed = _output.IdleAsync();
            if (!flushed.IsCompleted)
            {
                await flushed.WaitAsync(cancellationToken).ConfigureAwait(false);
            }
        }
    }

    /// <summary>Closes and waits until the websocket has ended: sends a Close (unless one was sent), runs the read loop
    /// if the application never started it (data frames are then discarded), and waits for the peer's Close within the
    /// close timeout.</summary>
    public async Task<WebSocketCloseInfo> CloseAndWaitAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        if (!IsStarted)
        {
            _ = RunAsync(DiscardingListener.Instance, CancellationToken.None);
        }

        if (!Completion.IsCompleted)
        {
            await CloseAsync(status, reason, cancellationToken).ConfigureAwait(false);
        }

        return await Completion.WaitAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Ends the websocket at once, without a close handshake.</summary>
    public void Abort()
    {
        if (_completion.Task.IsCompleted)
        {
            return;
        }

        _aborted = true;
        try
        {
            _abortSource.Cancel();
            _transport.Input.CancelPendingRead();
        }
        catch (Exception error) when (error is InvalidOperationException or ObjectDisposedException)
        {
            // The loop completed the transport in between: nothing left to abort.
        }

        _output.CancelPendingFlush();
        WakeLoop();
    }

    /// <summary>Ends the websocket gracefully if it has not ended (<see cref="CloseAndWaitAsync"/> with 1000, bounded by
    /// the close timeout), then releases it.</summary>
    /// <returns>Completes when the websocket has ended and its buffers are returned.</returns>
    public async ValueTask DisposeAsync()
    {
        if (!Completion.IsCompleted)
        {
            await CloseAndWaitAsync().ConfigureAwait(false);
        }

        Dispose();
    }

    /// <summary>Aborts the websocket if it runs; returns its buffers if it never ran.</summary>
    public void Dispose()
    {
        Abort();
        if (Volatile.Read(ref _started) == 0)
        {
            _session.Dispose();
        }
    }

    private void OnWritabilityChanged(bool writable)
    {
        if (writable || _output.IsEnded)
        {
            _wake.Set();
        }

        if (Interlocked.Exchange(ref _reportedWritable, writable ? 1 : 0) == (writable ? 1 : 0))
        {
            return; // no change (the output ended while not writable)
        }

        if (!writable)
        {
            _slowWatch.Waiting(_time.GetTimestamp(), _output.Flushed);
        }
        else
        {
            _slowWatch.Writable();
        }

        if (_session.Options.SlowConsumerTimeout > TimeSpan.Zero && !writable)
        {
            lock (_output.Sync)
            {
                ArmTimer();
            }
        }

        Volatile.Read(ref _listener)?.OnWritabilityChanged(writable);
        WritabilityChanged?.Invoke(this, writable);
    }

    private void WakeLoop() => _wake.Set();

    private void OnFlushEnded()
    {
        if (Volatile.Read(ref _loopWaiting) != 0)
        {
            _wake.Set();
        }

        Volatile.Read(ref _inbox)?.OutputDrained(); // group messages that waited for the output go next
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckOnReadLoop() => SendGuard.OnLoop(
        IsOnReadLoop, "Synchronous sends are for the read loop (listener callbacks); from other threads use SendAsync or SendBulkAsync.");

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckCanSend() => SendGuard.CanSend(CanSend, closing: _session.State != WebSocketSessionState.Open);
}
