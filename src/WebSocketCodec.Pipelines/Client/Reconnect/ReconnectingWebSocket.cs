using System.Buffers;
using System.Net.WebSockets;
using System.Text;

namespace WebSocketCodec.Pipelines;

/// <summary>A client websocket that comes back: reach for it when a client must stay connected across lost connections
/// and server restarts, with back-off, a hook that re-subscribes first, and the messages sent meanwhile queued.
/// Delivery is at most once.</summary>
/// <remarks><para>It connects over HTTP/1.1 or HTTP/2 (<see cref="ReconnectingWebSocketOptions.Http2"/>), and when the
/// websocket is lost (the transport dies, the keep-alive times out, the server closes with 1001, 1008, 1011, 1012, 1013
/// or 1014) or an attempt fails in a way that may pass (refused, timed out, 5xx, 429 or 503 with <c>Retry-After</c>),
/// it tries again after a back-off with jitter (<see cref="ReconnectBackoff"/>) as long as its policy
/// (<see cref="ReconnectPolicy"/>) and limits allow. Messages sent while disconnected are queued, dropped or refused
/// (<see cref="DisconnectedSendPolicy"/>); queued ones go out in order on the next websocket, after
/// <see cref="ReconnectingWebSocketOptions.OnConnected"/>. A message written to a websocket whose transport then dies
/// is not sent again: delivery is at most once. Received messages of every websocket come through one
/// <see cref="ReceiveAsync"/>, in order. Disposal stops every attempt and timer at once.</para>
/// <para>Events are raised on the client's own loop, one at a time; an exception a handler throws is ignored. Read with
/// <see cref="ReceiveAsync"/> from one reader at a time: unread messages pause a websocket's reading, which in time
/// ends it with a keep-alive timeout.</para></remarks>
public sealed class ReconnectingWebSocket : IAsyncDisposable
{
    /// <summary>Ended websockets kept for <see cref="ReceiveAsync"/> before the oldest is dropped unread.</summary>
    private const int MaxUnreadWebSockets = 8;

    private readonly ReconnectingWebSocketOptions _options;
    private readonly TimeProvider _time;
    private readonly Lock _gate = new();
    private readonly SendQueue _queue;
    private readonly CancellationTokenSource _stop = new();
    private readonly TaskCompletionSource<WebSocketStopReason> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _firstConnection = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<MessageWebSocket> _unread = [];
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private MessageWebSocket? _current;
    private bool _open;
    private WebSocketStopReason? _stopping;
    private bool _finished;
    private Task? _loop;
    private int _connections;

    /// <summary>A client for <paramref name="uri"/> (<c>ws://</c> or <c>wss://</c>); it connects on
    /// <see cref="StartAsync"/>.</summary>
    /// <exception cref="ArgumentException">The URI is not ws or wss, or an option is out of range.</exception>
    public ReconnectingWebSocket(Uri uri, ReconnectingWebSocketOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(uri);
        if (uri.Scheme is not ("ws" or "wss"))
        {
            throw new ArgumentException("The URI scheme must be ws or wss.", nameof(uri));
        }

        _options = options ?? new ReconnectingWebSocketOptions();
        _options.Validate();
        Uri = uri;
        _time = _options.Client.Session.TimeProvider ?? TimeProvider.System;
        _queue = new SendQueue(_options.Client.Session.Pool ?? ArrayPool<byte>.Shared, _options.MaxQueuedMessages, _options.MaxQueuedBytes);
    }

    /// <summary>A websocket is open (and took the queued messages).</summary>
    public event EventHandler<WebSocketConnectedEventArgs>? Connected;

    /// <summary>An open websocket ended.</summary>
    public event EventHandler<WebSocketDisconnectedEventArgs>? Disconnected;

    /// <summary>The client waits before its next attempt.</summary>
    public event EventHandler<WebSocketReconnectingEventArgs>? Reconnecting;

    /// <summary>The server.</summary>
    public Uri Uri { get; }

    /// <summary>Whether a websocket is open and takes sends directly.</summary>
    public bool IsConnected
    {
        get
        {
            lock (_gate)
            {
                return _open;
            }
        }
    }

    /// <summary>The open websocket, if any.</summary>
    public MessageWebSocket? Current
    {
        get
        {
            lock (_gate)
            {
                return _open ? _current : null;
            }
        }
    }

    /// <summary>How many websockets have been open so far.</summary>
    public int Connections => Volatile.Read(ref _connections);

    /// <summary>Messages queued while disconnected, not yet handed to a websocket.</summary>
    public int QueuedMessages
    {
        get
        {
            lock (_gate)
            {
                return _queue.Count;
            }
        }
    }

    /// <summary>How the last websocket ended, if one was open.</summary>
    public WebSocketCloseInfo? LastCloseInfo { get; private set; }

    /// <summary>Why the last attempt (or <see cref="ReconnectingWebSocketOptions.OnConnected"/>) failed, if one did.</summary>
    public Exception? LastError { get; private set; }

    /// <summary>Completes when the client has stopped for good, with why.</summary>
    public Task<WebSocketStopReason> Completion => _completion.Task;

    /// <summary>Starts connecting (once; later calls only wait) and completes when the first websocket is open.
    /// Failed attempts are retried as after a loss; if the client stops before any websocket opened, this fails with
    /// the last attempt's error. Cancelling stops only the wait.</summary>
    /// <exception cref="WebSocketHandshakeException">The client stopped before connecting (the last refusal).</exception>
    public Task StartAsync(CancellationToken cancellationToken = default)
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_stopping is WebSocketStopReason.Disposed, this);
            _loop ??= Task.Run(RunAsync, CancellationToken.None);
        }

        return _firstConnection.Task.WaitAsync(cancellationToken);
    }

    /// <summary>Sends a whole message: on the open websocket, or as the <see cref="ReconnectingWebSocketOptions.WhileDisconnected"/>
    /// policy says when none is open (the payload is copied when queued).</summary>
    /// <returns>Whether it was written, queued or dropped.</returns>
    /// <exception cref="WebSocketNotConnectedException">No websocket is open and the policy is
    /// <see cref="DisconnectedSendPolicy.Fail"/>, the queue is full, or the client has stopped.</exception>
    public async ValueTask<WebSocketSendOutcome> SendAsync(
        ReadOnlyMemory<byte> payload, WebSocketMessageType type, CancellationToken cancellationToken = default)
    {
        if (type is not (WebSocketMessageType.Text or WebSocketMessageType.Binary))
        {
            throw new ArgumentOutOfRangeException(nameof(type), type, "Send Close with CloseAsync.");
        }

        while (true)
        {
            MessageWebSocket? webSocket;
            lock (_gate)
            {
                if (_stopping is not null)
                {
                    throw new WebSocketNotConnectedException($"The client for {Uri} has stopped ({_stopping}).");
                }

                webSocket = _open ? _current : null;
                if (webSocket is null)
                {
                    return WhileDisconnected(payload.Span, type);
                }
            }

            try
            {
                await webSocket.SendAsync(payload, type, cancellationToken).ConfigureAwait(false);
                return WebSocketSendOutcome.Sent;
            }
            catch (InvalidOperationException)
            {
                // A whole message is refused this way only before anything was written: the websocket is closing or its
                // transport is gone (perhaps before the websocket noticed). Sends from now on wait for the next one.
                lock (_gate)
                {
                    if (ReferenceEquals(_current, webSocket))
                    {
                        _open = false;
                    }
                }
            }
        }
    }

    /// <summary>Sends a text message (see <see cref="SendAsync"/>).</summary>
    public async ValueTask<WebSocketSendOutcome> SendTextAsync(string text, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(text);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(Encoding.UTF8.GetMaxByteCount(text.Length));
        try
        {
            int length = Encoding.UTF8.GetBytes(text, buffer);
            return await SendAsync(buffer.AsMemory(0, length), WebSocketMessageType.Text, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>The next message the server sent, across websockets in the order they were open; null once the client
    /// has stopped and every message was read. Dispose each message. One reader at a time.</summary>
    public async ValueTask<WebSocketMessage?> ReceiveAsync(CancellationToken cancellationToken = default)
    {
        while (true)
        {
            MessageWebSocket? webSocket;
            Task changed;
            lock (_gate)
            {
                webSocket = _unread.Count > 0 ? _unread[0] : null;
                changed = _changed.Task;
                if (webSocket is null && _finished)
                {
                    return null;
                }
            }

            if (webSocket is null)
            {
                await changed.WaitAsync(cancellationToken).ConfigureAwait(false);
                continue;
            }

            WebSocketMessage? message = await webSocket.ReceiveAsync(cancellationToken).ConfigureAwait(false);
            if (message is not null)
            {
                return message;
            }

            bool mine;
            lock (_gate)
            {
                mine = _unread.Remove(webSocket);
            }

            if (mine)
            {
                await webSocket.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <summary>Stops reconnecting and closes the open websocket with a close handshake (messages still queued are
    /// dropped); completes with how it ended, or null when none was open.</summary>
    public async Task<WebSocketCloseInfo?> CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        MessageWebSocket? webSocket = Stop(WebSocketStopReason.Closed);
        WebSocketCloseInfo? info = webSocket is null ? null : await webSocket.CloseAsync(status, reason, cancellationToken).ConfigureAwait(false);
        await FinishAsync().ConfigureAwait(false);
        return info;
    }

    /// <summary>Stops at once: the attempt or wait under way is cancelled, the open websocket aborted, queued and unread
    /// messages dropped (their buffers returned).</summary>
    public async ValueTask DisposeAsync()
    {
        Stop(WebSocketStopReason.Disposed)?.Abort();
        await FinishAsync().ConfigureAwait(false);
        List<MessageWebSocket> unread;
        lock (_gate)
        {
            unread = [.. _unread];
            _unread.Clear();
        }

        foreach (MessageWebSocket webSocket in unread)
        {
            await webSocket.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>Marks the client stopping (the first reason wins) and cancels what the loop waits for.</summary>
    private MessageWebSocket? Stop(WebSocketStopReason reason)
    {
        MessageWebSocket? current;
        lock (_gate)
        {
            _stopping ??= reason;
            _open = false;
            current = _current;
        }

        _stop.Cancel();
        return current;
    }

    /// <summary>Waits for the loop, then drops the queue and wakes readers.</summary>
    private async Task FinishAsync()
    {
        Task? loop;
        lock (_gate)
        {
            loop = _loop;
        }

        if (loop is not null)
        {
            await loop.ConfigureAwait(false);
        }

        lock (_gate)
        {
            _queue.Clear(); // the loop, which flushes from it, has ended
            _finished = true;
            Changed();
        }

        _completion.TrySetResult(_stopping ?? WebSocketStopReason.Disposed);
        if (_firstConnection.TrySetException(LastError ?? new WebSocketNotConnectedException($"The client for {Uri} stopped before it connected ({_stopping}).")))
        {
            _ = _firstConnection.Task.Exception; // observed: StartAsync may never have been called
        }
    }

    private WebSocketSendOutcome WhileDisconnected(ReadOnlySpan<byte> payload, WebSocketMessageType type)
    {
        switch (_options.WhileDisconnected)
        {
            case DisconnectedSendPolicy.Drop:
                return WebSocketSendOutcome.Dropped;
            case DisconnectedSendPolicy.Fail:
                throw new WebSocketNotConnectedException($"No websocket to {Uri} is open (the policy is to fail sends while disconnected).");
            default:
                if (!_queue.TryEnqueue(payload, type))
                {
                    throw new WebSocketNotConnectedException(
                        $"No websocket to {Uri} is open and its queue is full ({_queue.Count} messages, {_queue.Bytes} bytes; at most {_options.MaxQueuedMessages} and {_options.MaxQueuedBytes}).");
                }

                return WebSocketSendOutcome.Queued;
        }
    }

    /// <summary>The loop: connect, run the websocket until it ends, decide, wait, again.</summary>
    private async Task RunAsync()
    {
        CancellationToken stop = _stop.Token;
        ReconnectBackoff backoff = _options.Backoff;
        int step = 1; // the back-off's position: reset by a stable connection only
        int attempts = 0; // attempts in this outage
        long outageStart = _time.GetTimestamp();
        try
        {
            while (true)
            {
                attempts++;
                MessageWebSocket? webSocket = null;
                Exception? failure = null;
                try
                {
                    webSocket = await ConnectOnceAsync(stop).ConfigureAwait(false);
                }
                catch (Exception error) when (!stop.IsCancellationRequested)
                {
                    failure = error;
                    LastError = error;
                }

                if (webSocket is null)
                {
                    if (!Decide(null, failure))
                    {
                        Stop(WebSocketStopReason.NotReconnectable);
                        return;
                    }
                }
                else
                {
                    long connectedAt = _time.GetTimestamp();
                    WebSocketCloseInfo closed = await RunWebSocketAsync(webSocket, attempts, stop).ConfigureAwait(false);
                    LastCloseInfo = closed;
                    if (stop.IsCancellationRequested)
                    {
                        return;
                    }

                    if (_time.GetElapsedTime(connectedAt) >= backoff.StableAfter)
                    {
                        step = 1;
                    }

                    bool again = Decide(closed, null);
                    Raise(Disconnected, new WebSocketDisconnectedEventArgs(closed, again));
                    if (!again)
                    {
                        Stop(WebSocketStopReason.NotReconnectable);
                        return;
                    }

                    attempts = 0;
                    outageStart = _time.GetTimestamp();
                }

                TimeSpan delay = backoff.DelayFor(step++, Random.Shared.NextDouble());
                if ((failure as WebSocketHandshakeException)?.RetryAfter is { } retryAfter && retryAfter > delay)
                {
                    delay = retryAfter;
                }

                if ((backoff.MaxAttempts is int maxAttempts && attempts + 1 > maxAttempts)
                    || (backoff.MaxElapsed is TimeSpan maxElapsed && _time.GetElapsedTime(outageStart) + delay > maxElapsed))
                {
                    Stop(WebSocketStopReason.GaveUp);
                    return;
                }

                Raise(Reconnecting, new WebSocketReconnectingEventArgs(attempts + 1, delay, failure));
                await Task.Delay(delay, _time, stop).ConfigureAwait(false);
            }
        }
        catch (Exception) when (stop.IsCancellationRequested)
        {
            // stopped (a cancelled attempt, delay or flush): FinishAsync completes the rest
        }
        finally
        {
            _ = Task.Run(FinishAsync, CancellationToken.None); // a stop the loop decided completes on its own
        }
    }

    private async Task<MessageWebSocket> ConnectOnceAsync(CancellationToken stop)
    {
        WebSocketConnection connection = _options.Http2 is { } invoker
            ? await WebSocketHttp2Client.ConnectAsync(invoker, Uri, _options.Client, stop).ConfigureAwait(false)
            : await WebSocketClient.ConnectAsync(Uri, _options.Client, stop).ConfigureAwait(false);
        return connection.RunMessages(_options.Client.Session.Pool, _options.MaxReceivedMessages, cancellationToken: CancellationToken.None);
    }

    /// <summary>One websocket's life: the hook, the queued messages, open for sends until it ends.</summary>
    private async Task<WebSocketCloseInfo> RunWebSocketAsync(MessageWebSocket webSocket, int attempts, CancellationToken stop)
    {
        List<MessageWebSocket>? dropped = null;
        lock (_gate)
        {
            _current = webSocket;
            _unread.Add(webSocket);
            while (_unread.Count > MaxUnreadWebSockets && _unread[0].Completion.IsCompleted)
            {
                (dropped ??= []).Add(_unread[0]);
                _unread.RemoveAt(0);
            }

            Changed();
        }

        if (stop.IsCancellationRequested)
        {
            webSocket.Abort(); // stopped while it connected: Stop did not see it
        }

        foreach (MessageWebSocket old in dropped ?? [])
        {
            await old.DisposeAsync().ConfigureAwait(false);
        }

        try
        {
            if (_options.OnConnected is { } hook)
            {
                await hook(webSocket, stop).ConfigureAwait(false);
            }

            if (await FlushQueueAsync(webSocket, stop).ConfigureAwait(false))
            {
                Interlocked.Increment(ref _connections);
                _firstConnection.TrySetResult();
                Raise(Connected, new WebSocketConnectedEventArgs(webSocket, _connections, attempts));
            }
        }
#pragma warning disable CA1031 // whatever the hook throws, this websocket counts as lost
        catch (Exception error)
#pragma warning restore CA1031
        {
            if (!stop.IsCancellationRequested)
            {
                LastError = error;
            }

            webSocket.Abort();
        }

        WebSocketCloseInfo closed = await webSocket.Completion.ConfigureAwait(false);
        lock (_gate)
        {
            _open = false;
            _current = null;
            Changed();
        }

        return closed;
    }

    /// <summary>Hands the queued messages to the new websocket in order, then opens it for sends. A message leaves the
    /// queue only once written; false when the websocket ended first.</summary>
    private async Task<bool> FlushQueueAsync(MessageWebSocket webSocket, CancellationToken stop)
    {
        while (true)
        {
            ReadOnlyMemory<byte> payload;
            WebSocketMessageType type;
            lock (_gate)
            {
                if (_stopping is not null)
                {
                    return false;
                }

                if (!_queue.TryPeek(out payload, out type))
                {
                    _open = true;
                    return true;
                }
            }

            try
            {
                await webSocket.SendAsync(payload, type, stop).ConfigureAwait(false);
            }
            catch (InvalidOperationException)
            {
                return false; // not written (closing, or the transport is gone): it stays first for the next websocket
            }

            lock (_gate)
            {
                _queue.RemoveFirst();
            }
        }
    }

    private bool Decide(WebSocketCloseInfo? closed, Exception? error)
    {
        Func<WebSocketCloseInfo?, Exception?, bool> policy = _options.ShouldReconnect ?? ReconnectPolicy.Default;
        try
        {
            return policy(closed, error);
        }
        catch (Exception policyError)
        {
            LastError = policyError; // a policy that throws stops the client
            return false;
        }
    }

    private void Raise<T>(EventHandler<T>? handler, T arguments)
    {
        try
        {
            handler?.Invoke(this, arguments);
        }
#pragma warning disable CA1031 // a handler's failure must not end the client's loop
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>Wakes readers waiting for a websocket; under the lock.</summary>
    private void Changed()
    {
        _changed.TrySetResult();
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
    }
}
