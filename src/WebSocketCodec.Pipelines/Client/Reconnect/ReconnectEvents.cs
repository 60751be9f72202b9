namespace WebSocketCodec.Pipelines;

/// <summary>The arguments of <see cref="ReconnectingWebSocket.Connected"/>, for a handler that logs or reacts to each
/// new websocket. A <see cref="ReconnectingWebSocket"/> has an open websocket: the
/// <see cref="ReconnectingWebSocketOptions.OnConnected"/> hook ran and the messages queued while disconnected were
/// handed to it.</summary>
public sealed class WebSocketConnectedEventArgs(MessageWebSocket webSocket, int connection, int attempts) : EventArgs
{
    /// <summary>The open websocket.</summary>
    public MessageWebSocket WebSocket { get; } = webSocket;

    /// <summary>Which connection this is: 1 for the first.</summary>
    public int Connection { get; } = connection;

    /// <summary>How many attempts it took since the last loss (1 when the first succeeded).</summary>
    public int Attempts { get; } = attempts;
}

/// <summary>The arguments of <see cref="ReconnectingWebSocket.Disconnected"/>, for a handler that logs or reacts to a
/// lost websocket: an open websocket of a <see cref="ReconnectingWebSocket"/> ended.</summary>
public sealed class WebSocketDisconnectedEventArgs(WebSocketCloseInfo closeInfo, bool willReconnect) : EventArgs
{
    /// <summary>How it ended (the server's Close, a timeout, a lost transport...).</summary>
    public WebSocketCloseInfo CloseInfo { get; } = closeInfo;

    /// <summary>Whether the client tries again (false when it stops: see <see cref="ReconnectingWebSocket.Completion"/>).</summary>
    public bool WillReconnect { get; } = willReconnect;
}

/// <summary>The arguments of <see cref="ReconnectingWebSocket.Reconnecting"/>, for a handler that shows or logs the
/// wait: a <see cref="ReconnectingWebSocket"/> waits before its next attempt.</summary>
public sealed class WebSocketReconnectingEventArgs(int attempt, TimeSpan delay, Exception? lastError) : EventArgs
{
    /// <summary>The attempt it waits for: 1 for the first since the loss.</summary>
    public int Attempt { get; } = attempt;

    /// <summary>How long it waits (back-off with jitter, or the server's <c>Retry-After</c>).</summary>
    public TimeSpan Delay { get; } = delay;

    /// <summary>Why the previous attempt failed, or null when a websocket was lost.</summary>
    public Exception? LastError { get; } = lastError;
}
