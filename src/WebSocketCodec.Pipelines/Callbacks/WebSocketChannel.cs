using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// One websocket over an <see cref="IDuplexPipe"/> after the opening handshake: the read loop, the write lock that
/// orders every send, and the closing sequence. Each <c>ReadAsync</c> hands every whole frame in the buffer to the
/// listener (payloads unmasked in place, no frame object, no allocation), then one <c>AdvanceTo</c>, then one flush of
/// everything the listener and the protocol wrote. A protocol violation ends in one Close with its status, flushed,
/// then the input is drained (bounded in bytes and time) until the peer's Close or FIN, and only then is the transport
/// closed, so a reset never erases our Close.
/// </summary>
public sealed partial class WebSocketChannel : IDisposable
{
    /// <summary>The most input drained after a violation before the transport is closed anyway.</summary>
    public const int MaxDrainBytes = 1024 * 1024;

    private const int LongestHeader = 14;

    private readonly IDuplexPipe _transport;
    private readonly CoalescingWriter _output;
    private readonly WebSocketSession _session;
    private readonly SemaphoreSlim _writeLock = new(1, 1);
    private readonly TimeProvider _time;
    private readonly TaskCompletionSource<WebSocketCloseInfo> _completion =
        new(TaskCreationOptions.RunContinuationsAsynchronously);

    private ITimer? _timer;
    private int _loopThread;
    private volatile bool _aborted;
    private bool _outputClosed;
    private int _started;
    private readonly CancellationTokenSource _abortSource = new();
    private Exception? _error;
    private bool _closeTimedOut;
    private bool _outputCompleted;
    private ushort? _drainedCloseStatus;

    /// <summary>Creates the websocket for one end of an upgraded connection.</summary>
    /// <param name="transport">The connection's bytes after the handshake (frames that came with the handshake
    /// included).</param>
    /// <param name="role">Which end this is: a server expects masked input, a client masks its output.</param>
    /// <param name="options">Limits and timeouts.</param>
    /// <param name="subprotocol">The negotiated subprotocol, for the application to see.</param>
    public WebSocketChannel(IDuplexPipe transport, WebSocketRole role, WebSocketSessionOptions? options = null, string? subprotocol = null)
    {
        ArgumentNullException.ThrowIfNull(transport);
        _transport = transport;
        _output = new CoalescingWriter(transport.Output);
        // Every call into the session happens under the write lock, so it writes its control frames straight into
        // the output, in order with the application's frames.
        _session = new WebSocketSession(role, options) { Output = _output };
        _time = _session.Options.TimeProvider ?? TimeProvider.System;
        Subprotocol = subprotocol;
        Sender = new WebSocketFrameSender(this, _output, _session.Encoder);
    }

    /// <summary>Which end this is.</summary>
    public WebSocketRole Role => _session.Role;

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

    internal bool IsOnReadLoop => _loopThread == Environment.CurrentManagedThreadId;

    internal bool CanSend => _session.State == WebSocketSessionState.Open && !_outputClosed && !_aborted;

    /// <summary>Runs the callbacks API: hands <paramref name="exchange"/> the frame sender, then reads until the
    /// websocket ends.</summary>
    public Task<WebSocketCloseInfo> RunAsync(WebSocketExchange exchange, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(exchange);
        return RunAsync(exchange(Sender), cancellationToken);
    }

    /// <summary>Reads until the websocket ends, handing data frames to <paramref name="listener"/>; then closes the
    /// transport. Cancelling aborts the websocket (for a graceful end call <see cref="CloseAsync"/>).</summary>
    /// <returns>How the websocket ended (also reported to <see cref="IWebSocketFrameListener.OnClose"/>).</returns>
    public async Task<WebSocketCloseInfo> RunAsync(IWebSocketFrameListener listener, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(listener);
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            throw new InvalidOperationException("The websocket is already running.");
        }

        var kind = Role == WebSocketRole.Server ? ActivityKind.Server : ActivityKind.Client;
        using Activity? activity = WebSocketTelemetry.Source.StartActivity("websocket", kind);
        activity?.SetTag("websocket.subprotocol", Subprotocol);
        WebSocketTelemetry.Connections.Add(1);
        WebSocketTelemetry.ActiveConnections.Add(1);
        using CancellationTokenRegistration registration = cancellationToken.UnsafeRegister(
            static state => ((WebSocketChannel)state!).Abort(), this);
        try
        {
            ArmTimer();
            await ReadLoopAsync(listener).ConfigureAwait(false);
        }
        catch (Exception error)
        {
            // A transport error, or the one an abort provokes: either way the websocket ends here and reports it.
            _error ??= _aborted ? new OperationCanceledException("The websocket was aborted.", error) : error;
        }
        finally
        {
            _session.Abort(); // returns a partly gathered frame's buffer
            _timer?.Dispose();
            await _transport.Input.CompleteAsync().ConfigureAwait(false);
            await CompleteOutputAsync().ConfigureAwait(false);
            WebSocketTelemetry.ActiveConnections.Add(-1);
        }

        if (_aborted && _error is null && _session.ReceivedCloseStatus is null)
        {
            _error = new OperationCanceledException("The websocket was aborted.");
        }

        var info = new WebSocketCloseInfo(
            _session.ReceivedCloseStatus ?? _drainedCloseStatus, _session.ReceivedCloseReason, _session.SentCloseStatus, _session.Violation,
            _session.Timeout ?? (_closeTimedOut ? SessionTimerResult.CloseTimeout : null), _error);
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

    /// <summary>Starts the close handshake: sends a Close with <paramref name="status"/> and waits for the peer's
    /// within the close timeout (<see cref="Completion"/> then completes). Does nothing if a Close was sent already.
    /// Safe from any thread and from a listener callback.</summary>
    public async ValueTask CloseAsync(
        ushort status = (ushort)CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        if (IsOnReadLoop)
        {
            // The loop holds the write lock; it writes and flushes the Close after this read.
            if (_session.StartClose(status, reason))
            {
                ArmTimer();
            }

            return;
        }

        await EnterWriteAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            if (_session.StartClose(status, reason) && !_aborted)
            {
                ArmTimer();
                _session.WritePendingOutput(_output);
                await FlushLockedAsync(cancellationToken).ConfigureAwait(false);
            }
        }
        finally
        {
            ExitWrite();
        }
    }

    /// <summary>Closes and waits until the websocket has ended: sends a Close (unless one was sent), runs the read loop
    /// if the application never started it (data frames are then discarded), and waits for the peer's Close within the
    /// close timeout.</summary>
    public async Task<WebSocketCloseInfo> CloseAndWaitAsync(
        ushort status = (ushort)CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
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
            _transport.Output.CancelPendingFlush();
        }
        catch (Exception error) when (error is InvalidOperationException or ObjectDisposedException)
        {
            // The loop completed the transport in between: nothing left to abort.
        }
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

    internal ValueTask EnterWriteAsync(CancellationToken cancellationToken)
    {
        Task wait = _writeLock.WaitAsync(cancellationToken);
        return wait.IsCompletedSuccessfully ? default : new ValueTask(wait);
    }

    internal void ExitWrite() => _writeLock.Release();

    /// <summary>Flushes the output; the caller holds the write lock. Pooled: a flush that waits for the transport
    /// (backpressure) reuses a state machine instead of allocating one.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    internal async ValueTask FlushLockedAsync(CancellationToken cancellationToken)
    {
        _output.Commit();
        PipeWriter output = _transport.Output;
        if (output.CanGetUnflushedBytes)
        {
            long pending = output.UnflushedBytes;
            if (pending == 0)
            {
                return;
            }

            WebSocketTelemetry.BytesSent.Add(pending);
        }

        FlushResult result = await output.FlushAsync(cancellationToken).ConfigureAwait(false);
        if (result.IsCompleted || result.IsCanceled)
        {
            _outputClosed = true;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckOnReadLoop()
    {
        if (!IsOnReadLoop)
        {
            ThrowNotOnLoop();
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void CheckCanSend()
    {
        if (!CanSend)
        {
            ThrowClosed();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowNotOnLoop() => throw new InvalidOperationException(
        "Synchronous sends are for the read loop (listener callbacks); from other threads use SendAsync or SendBulkAsync.");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ThrowClosed() => throw new InvalidOperationException(
        _session.State == WebSocketSessionState.Open ? "The transport is closed." : "The websocket is closing or closed: no more data frames may be sent.");
}
