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
public sealed class WebSocketChannel : IDisposable
{
    /// <summary>The most input drained after a violation before the transport is closed anyway.</summary>
    public const int MaxDrainBytes = 1024 * 1024;

    private const int LongestHeader = 14;

    private readonly IDuplexPipe _transport;
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
        // Every call into the session happens under the write lock, so it writes its control frames straight into
        // the output, in order with the application's frames.
        _session = new WebSocketSession(role, options) { Output = transport.Output };
        _time = _session.Options.TimeProvider ?? TimeProvider.System;
        Subprotocol = subprotocol;
        Sender = new WebSocketFrameSender(this, transport.Output, _session.Encoder);
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
        catch (Exception error) when (!_aborted)
        {
            _error ??= error;
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
            _session.ReceivedCloseStatus, _session.ReceivedCloseReason, _session.SentCloseStatus, _session.Violation,
            _session.Timeout, _error);
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
                _session.WritePendingOutput(_transport.Output);
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

    /// <summary>Flushes the output; the caller holds the write lock.</summary>
    internal async ValueTask FlushLockedAsync(CancellationToken cancellationToken)
    {
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

    private async Task ReadLoopAsync(IWebSocketFrameListener listener)
    {
        PipeReader reader = _transport.Input;
        while (true)
        {
            ReadResult result = await reader.ReadAsync().ConfigureAwait(false);
            if (_aborted)
            {
                return;
            }

            ReadOnlySequence<byte> buffer = result.Buffer;
            OperationStatus status = OperationStatus.NeedMoreData;
            SessionTimerResult timer = SessionTimerResult.None;
            await EnterWriteAsync(default).ConfigureAwait(false);
            try
            {
                SequencePosition consumed = buffer.Start;
                if (!buffer.IsEmpty)
                {
                    _loopThread = Environment.CurrentManagedThreadId;
                    try
                    {
                        status = Dispatch(buffer, listener, out consumed);
                    }
                    catch (Exception error)
                    {
                        // The application failed: 1011, then the closing sequence.
                        _error = error;
                        consumed = buffer.End;
                        _session.StartClose((ushort)CloseStatus.InternalError, "internal error");
                        status = OperationStatus.InvalidData;
                    }
                    finally
                    {
                        _loopThread = 0;
                    }
                }

                if (status == OperationStatus.InvalidData)
                {
                    // Nothing after a violation is decoded: drop it, so the drain sees the peer's answer at the front.
                    consumed = buffer.End;
                }

                reader.AdvanceTo(consumed, buffer.End);
                if (result.IsCanceled && _session.State != WebSocketSessionState.Closed)
                {
                    timer = _session.OnTimer();
                    ArmTimer();
                }

                if (!_outputClosed)
                {
                    _session.WritePendingOutput(_transport.Output);
                    await FlushLockedAsync(default).ConfigureAwait(false);
                }
            }
            finally
            {
                ExitWrite();
            }

            if (status == OperationStatus.InvalidData)
            {
                if (_session.Violation != ProtocolViolation.None)
                {
                    WebSocketTelemetry.Violations.Add(1, new KeyValuePair<string, object?>("websocket.violation", _session.Violation.ToString()));
                }

                await DrainAsync(reader, probeForClose: true).ConfigureAwait(false);
                return;
            }

            if (timer is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout)
            {
                return; // the peer is gone or unresponsive: close the transport now
            }

            if (_session.State == WebSocketSessionState.Closed)
            {
                if (Role == WebSocketRole.Client)
                {
                    // RFC 6455 §7.1.1: the server closes the TCP connection first; wait (bounded) for its FIN.
                    await DrainAsync(reader, probeForClose: false).ConfigureAwait(false);
                }

                return;
            }

            if (result.IsCompleted)
            {
                return; // the peer closed the transport without a Close: 1006
            }

            try
            {
                await listener.OnReadCompleteAsync(_abortSource.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (_aborted)
            {
                return;
            }
        }
    }

    /// <summary>Hands every whole frame in <paramref name="buffer"/> to the session and the listener.</summary>
    private OperationStatus Dispatch(in ReadOnlySequence<byte> buffer, IWebSocketFrameListener listener, out SequencePosition consumed)
    {
        var handler = new ListenerHandler(listener);
        ReadOnlySequence<byte> rest = buffer;
        OperationStatus status = OperationStatus.NeedMoreData;
        Span<byte> scratch = stackalloc byte[LongestHeader + 2];
        while (!rest.IsEmpty)
        {
            // The pipe's memory is ours until AdvanceTo: payloads are unmasked in it.
            Span<byte> span = MemoryMarshal.AsMemory(rest.First).Span;
            int used;
            if (span.Length < LongestHeader && !rest.IsSingleSegment)
            {
                // A header may straddle segments: offer a copy of the next few bytes. What the session consumes from
                // the copy is released from the pipe, so nothing is unmasked twice.
                int length = (int)Math.Min(rest.Length, scratch.Length);
                rest.Slice(0, length).CopyTo(scratch);
                status = _session.Receive(scratch.Slice(0, length), ref handler, out used);
            }
            else
            {
                status = _session.Receive(span, ref handler, out used);
            }

            rest = rest.Slice(used);
            if (status != OperationStatus.NeedMoreData || used == 0)
            {
                break;
            }
        }

        consumed = rest.Start;
        WebSocketTelemetry.BytesReceived.Add(buffer.Length - rest.Length);
        if (handler.Frames > 0)
        {
            WebSocketTelemetry.FramesReceived.Add(handler.Frames);
            WebSocketTelemetry.MessagesReceived.Add(handler.Messages);
        }

        return status;
    }

    /// <summary>Reads and discards input until the peer's Close (when <paramref name="probeForClose"/>) or FIN, for at
    /// most the close timeout and <see cref="MaxDrainBytes"/>.</summary>
    private async Task DrainAsync(PipeReader reader, bool probeForClose)
    {
        using var deadline = new CancellationTokenSource(_session.Options.CloseTimeout, _time);
        long drained = 0;
        try
        {
            while (drained < MaxDrainBytes && !_aborted)
            {
                ReadResult result = await reader.ReadAsync(deadline.Token).ConfigureAwait(false);
                ReadOnlySequence<byte> buffer = result.Buffer;
                bool sawClose = probeForClose && StartsWithClose(buffer);
                drained += buffer.Length;
                reader.AdvanceTo(buffer.End);
                if (result.IsCompleted || result.IsCanceled || sawClose)
                {
                    return;
                }
            }
        }
        catch (OperationCanceledException)
        {
            // The close timeout passed: close the transport anyway.
        }
    }

    /// <summary>Whether a read that starts on a frame boundary holds a Close (the peer's answer to ours).</summary>
    private bool StartsWithClose(in ReadOnlySequence<byte> buffer)
    {
        Span<byte> copy = stackalloc byte[512];
        int length = (int)Math.Min(buffer.Length, copy.Length);
        buffer.Slice(0, length).CopyTo(copy);
        var probe = new FrameDecoder(Role, new FrameDecoderOptions { ValidateUtf8 = false });
        Span<byte> rest = copy.Slice(0, length);
        while (probe.ReadFrame(rest, out FrameHeader header, out _, out _) == OperationStatus.Done)
        {
            if (header.Opcode == WebSocketOpcode.Close)
            {
                return true;
            }

            rest = rest.Slice((int)header.FrameLength);
        }

        return false;
    }

    private void ArmTimer()
    {
        TimeSpan due = _session.NextTimerDue;
        if (due == System.Threading.Timeout.InfiniteTimeSpan)
        {
            _timer?.Change(System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
            return;
        }

        _timer ??= _time.CreateTimer(
            static state => ((WebSocketChannel)state!)._transport.Input.CancelPendingRead(),
            this, System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
        _timer.Change(due, System.Threading.Timeout.InfiniteTimeSpan);
    }

    private async ValueTask CompleteOutputAsync()
    {
        await _writeLock.WaitAsync().ConfigureAwait(false);
        try
        {
            _outputClosed = true;
            await _transport.Output.CompleteAsync().ConfigureAwait(false);
        }
        finally
        {
            _writeLock.Release();
        }
    }

    private static void Report(WebSocketCloseInfo info, Activity? activity)
    {
        string initiator = info.Violation != ProtocolViolation.None ? "violation"
            : info.Timeout is not null ? "timeout"
            : info.Error is not null ? "error"
            : info.ReceivedStatus is null ? "transport"
            : "peer-or-local";
        WebSocketTelemetry.Closes.Add(
            1, new KeyValuePair<string, object?>("websocket.close.status", (int)info.Status),
            new KeyValuePair<string, object?>("websocket.close.cause", initiator));
        if (activity is not null)
        {
            activity.SetTag("websocket.close.status", (int)info.Status);
            activity.SetTag("websocket.close.cause", initiator);
            if (info.Violation != ProtocolViolation.None)
            {
                activity.SetTag("websocket.violation", info.Violation.ToString());
                activity.SetStatus(ActivityStatusCode.Error, info.Violation.Describe());
            }
            else if (info.Error is not null)
            {
                activity.SetStatus(ActivityStatusCode.Error, info.Error.Message);
            }
        }
    }

    private sealed class DiscardingListener : IWebSocketFrameListener
    {
        public static readonly DiscardingListener Instance = new();

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }

    private struct ListenerHandler(IWebSocketFrameListener listener) : IFrameHandler
    {
        public long Frames;
        public long Messages;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            if (((int)opcode & 0x08) == 0)
            {
                Frames++;
                Messages += fin ? 1 : 0;
                listener.OnFrame(opcode, fin, rsv, payload);
            }

            return true;
        }
    }
}
