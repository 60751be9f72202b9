namespace WebSocketCodec.Pipelines;

/// <summary>How a <see cref="ReconnectingWebSocket"/> connects, when it tries again, and what becomes of messages sent
/// while it is disconnected: pass it to the client's constructor when the defaults (HTTP/1.1,
/// <see cref="ReconnectBackoff.Default"/>, <see cref="ReconnectPolicy.Default"/>, and a queue of up to 1,024 messages
/// or 1 MiB) do not fit.</summary>
public sealed record ReconnectingWebSocketOptions
{
    /// <summary>How each websocket connects (subprotocols, headers, TLS and client certificates, the proxy, the
    /// handshake timeout) and the websocket's own options: its keep-alive (<see cref="WebSocketSessionOptions.KeepAliveInterval"/>
    /// and <see cref="WebSocketSessionOptions.KeepAliveTimeout"/>) is what notices a silent dead connection.</summary>
    public WebSocketClientOptions Client { get; init; } = WebSocketClientOptions.Default;

    /// <summary>Connect over HTTP/2 (RFC 8441) through this invoker (from <see cref="WebSocketHttp2Client.CreateHandler(WebSocketClientOptions)"/>),
    /// each websocket on its own stream: several reconnecting clients given the same invoker share its connection, and
    /// when that connection is gone, the ones that reconnect share a new one. Null (the default): HTTP/1.1. The client
    /// does not dispose the invoker.</summary>
    public HttpMessageInvoker? Http2 { get; init; }

    /// <summary>When to try again.</summary>
    public ReconnectBackoff Backoff { get; init; } = ReconnectBackoff.Default;

    /// <summary>Whether to try again after a websocket ended (its close info) or an attempt failed (its exception);
    /// null uses <see cref="ReconnectPolicy.Default"/>, which a policy of your own can call for what it does not
    /// decide.</summary>
    public Func<WebSocketCloseInfo?, Exception?, bool>? ShouldReconnect { get; init; }

    /// <summary>Runs on each new websocket before the messages queued while disconnected go out and before it takes
    /// new sends: re-subscribe or authenticate here by sending on the websocket it is given. If it throws, that
    /// websocket is aborted and counts as lost.</summary>
    public Func<MessageWebSocket, CancellationToken, ValueTask>? OnConnected { get; init; }

    /// <summary>What a send does while no websocket is open (<see cref="DisconnectedSendPolicy.Queue"/> by default).</summary>
    public DisconnectedSendPolicy WhileDisconnected { get; init; } = DisconnectedSendPolicy.Queue;

    /// <summary>The bound on queued messages (1,024).</summary>
    public int MaxQueuedMessages { get; init; } = 1024;

    /// <summary>The bound on queued bytes (1 MiB).</summary>
    public long MaxQueuedBytes { get; init; } = 1024 * 1024;

    /// <summary>Received messages each websocket holds for <see cref="ReconnectingWebSocket.ReceiveAsync"/> before it
    /// pauses reading (64).</summary>
    public int MaxReceivedMessages { get; init; } = 64;

    /// <summary>Checks the values.</summary>
    /// <exception cref="ArgumentException">A value is out of range.</exception>
    public void Validate()
    {
        ArgumentNullException.ThrowIfNull(Client, nameof(Client));
        ArgumentNullException.ThrowIfNull(Backoff, nameof(Backoff));
        Client.Validate();
        Backoff.Validate();
        ArgumentOutOfRangeException.ThrowIfNegative(MaxQueuedMessages, nameof(MaxQueuedMessages));
        ArgumentOutOfRangeException.ThrowIfNegative(MaxQueuedBytes, nameof(MaxQueuedBytes));
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(MaxReceivedMessages, nameof(MaxReceivedMessages));
        if (!Enum.IsDefined(WhileDisconnected))
        {
            throw new ArgumentOutOfRangeException(nameof(WhileDisconnected), WhileDisconnected, "Not a DisconnectedSendPolicy.");
        }
    }
}
