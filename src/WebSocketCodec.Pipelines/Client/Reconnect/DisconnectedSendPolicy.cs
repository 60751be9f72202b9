namespace WebSocketCodec.Pipelines;

/// <summary>What a <see cref="ReconnectingWebSocket"/> does with a message sent while it has no open websocket: set it
/// as <see cref="ReconnectingWebSocketOptions.WhileDisconnected"/> to queue such messages (the default), drop them, or
/// refuse them.</summary>
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

/// <summary>What became of a message given to <see cref="ReconnectingWebSocket.SendAsync"/>: check it to know whether
/// the message was written to the open websocket, queued for the next one, or dropped.</summary>
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

/// <summary>Why a <see cref="ReconnectingWebSocket"/> stopped for good
/// (<see cref="ReconnectingWebSocket.Completion"/>): read it to tell the application's own close or disposal from a
/// policy that said not to try again or an outage past the back-off's limits.</summary>
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
