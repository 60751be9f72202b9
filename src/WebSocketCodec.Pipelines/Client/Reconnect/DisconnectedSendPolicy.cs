namespace WebSocketCodec.Pipelines;

/// <summary>What a <see cref="ReconnectingWebSocket"/> does with a message sent while it has no open websocket.</summary>
public enum DisconnectedSendPolicy
{
    /// <summary>Keep it (bounded in messages and bytes) and send it, in order, on the next websocket after
    /// <see cref="ReconnectingWebSocketOptions.OnConnected"/>; a send past the bound fails with
    /// <see cref="WebSocketNotConnectedException"/>.</summary>
    Queue,

    /// <summary>Drop it: the send reports <see cref="WebSocketSendOutcome.Dropped"/>.</summary>
    Drop,

    /// <summary>Fail the send with <see cref="WebSocketNotConnectedException"/>.</summary>
    Fail,
}

/// <summary>What became of a message given to <see cref="ReconnectingWebSocket.SendAsync"/>.</summary>
public enum WebSocketSendOutcome
{
    /// <summary>Written to the open websocket (its transport may still die before the server reads it: at most
    /// once).</summary>
    Sent,

    /// <summary>Queued while disconnected; it goes out on the next websocket.</summary>
    Queued,

    /// <summary>Dropped while disconnected (<see cref="DisconnectedSendPolicy.Drop"/>).</summary>
    Dropped,
}

/// <summary>Why a <see cref="ReconnectingWebSocket"/> stopped for good (<see cref="ReconnectingWebSocket.Completion"/>).</summary>
public enum WebSocketStopReason
{
    /// <summary>The application closed it (<see cref="ReconnectingWebSocket.CloseAsync"/>).</summary>
    Closed,

    /// <summary>It was disposed.</summary>
    Disposed,

    /// <summary>The reconnect policy said not to try again (see <see cref="ReconnectingWebSocket.LastCloseInfo"/> and
    /// <see cref="ReconnectingWebSocket.LastError"/>).</summary>
    NotReconnectable,

    /// <summary>An outage passed <see cref="ReconnectBackoff.MaxAttempts"/> or <see cref="ReconnectBackoff.MaxElapsed"/>.</summary>
    GaveUp,
}
