using System.Buffers;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;

namespace WebSocketCodec;

/// <summary>
/// A <see cref="WebSocket"/> over our codec, so code written for ASP.NET Core's websockets or
/// <see cref="ClientWebSocket"/> runs unchanged. Differences that only make it stricter: the peer's Close is answered
/// at once by the library (echoing its status), so after <see cref="ReceiveAsync(Memory{byte}, CancellationToken)"/>
/// returns a Close the state is already <see cref="WebSocketState.Closed"/> and a following
/// <see cref="CloseAsync"/> or <see cref="CloseOutputAsync"/> does nothing.
/// </summary>
public sealed class PipeWebSocket : WebSocket
{
    private readonly MessageWebSocket _messages;
    private WebSocketMessage? _current;
    private int _offset;
    private bool _sendingMessage;
    private bool _closeDelivered;
    private bool _disposed;

    /// <summary>Wraps the message API of a websocket (run by its host with <see cref="MessageWebSocket.Listener"/>).</summary>
    /// <param name="messages">The message API underneath; this websocket owns it from now on.</param>
    public PipeWebSocket(MessageWebSocket messages)
    {
        ArgumentNullException.ThrowIfNull(messages);
        _messages = messages;
    }

    /// <summary>The message API underneath.</summary>
    public MessageWebSocket Messages => _messages;

    /// <inheritdoc />
    public override WebSocketCloseStatus? CloseStatus =>
        _messages.Completion.IsCompletedSuccessfully && _messages.Completion.Result.ReceivedStatus is { } status
            ? (WebSocketCloseStatus)status
            : null;

    /// <inheritdoc />
    public override string? CloseStatusDescription =>
        _messages.Completion.IsCompletedSuccessfully ? _messages.Completion.Result.ReceivedReason : null;

    /// <inheritdoc />
    public override string? SubProtocol => _messages.Subprotocol;

    /// <inheritdoc />
    public override WebSocketState State
    {
        get
        {
            if (_disposed)
            {
                return WebSocketState.Closed;
            }

            if (_messages.Completion.IsCompleted)
            {
                WebSocketCloseInfo info = _messages.Completion.Result;
                return info.ReceivedStatus is not null && info.SentStatus is not null ? WebSocketState.Closed : WebSocketState.Aborted;
            }

            return _messages.Driver.State switch
            {
                WebSocketSessionState.Open => WebSocketState.Open,
                WebSocketSessionState.CloseSent => WebSocketState.CloseSent,
                _ => WebSocketState.CloseReceived,
            };
        }
    }

    /// <inheritdoc />
    public override void Abort() => _messages.Abort();

    /// <inheritdoc />
    public override async Task CloseAsync(WebSocketCloseStatus closeStatus, string? statusDescription, CancellationToken cancellationToken)
    {
        WebSocketCloseInfo info = await _messages.CloseAsync((CloseStatus)closeStatus, statusDescription, cancellationToken).ConfigureAwait(false);
        ThrowIfFailed(info);
    }

    /// <inheritdoc />
    public override async Task CloseOutputAsync(WebSocketCloseStatus closeStatus, string? statusDescription, CancellationToken cancellationToken)
    {
        if (!_messages.Completion.IsCompleted)
        {
            // Our Close is sent; the handshake's end is the read side's business (ReceiveAsync sees the peer's Close).
            _ = _messages.Driver.CloseAsync((CloseStatus)closeStatus, statusDescription, CancellationToken.None);
            await _messages.Driver.Sender.FlushedAsync().WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Aborts the websocket if it is still open and returns at once (as <c>ManagedWebSocket</c> does): no thread
    /// waits for the read loop; the buffers of unreceived messages go back to the pool when it has ended.</summary>
    public override void Dispose()
    {
        if (!_disposed)
        {
            _disposed = true;
            _current?.Dispose();
            _current = null;
            ValueTask disposing = _messages.DisposeAsync();
            if (!disposing.IsCompleted)
            {
                _ = ObserveAsync(disposing);
            }
            else
            {
                disposing.GetAwaiter().GetResult();
            }
        }
    }

    private static async Task ObserveAsync(ValueTask disposing)
    {
        try
        {
            await disposing.ConfigureAwait(false);
        }
        catch (Exception error) when (error is OperationCanceledException or IOException or InvalidOperationException)
        {
            // The aborted read loop's end: nothing to report to a disposed websocket.
        }
    }

    /// <inheritdoc />
    public override async Task<WebSocketReceiveResult> ReceiveAsync(ArraySegment<byte> buffer, CancellationToken cancellationToken)
    {
        ValueWebSocketReceiveResult result = await ReceiveAsync(buffer.AsMemory(), cancellationToken).ConfigureAwait(false);
        return result.MessageType == WebSocketMessageType.Close
            ? new WebSocketReceiveResult(0, WebSocketMessageType.Close, true, CloseStatus, CloseStatusDescription)
            : new WebSocketReceiveResult(result.Count, result.MessageType, result.EndOfMessage);
    }

    /// <inheritdoc />
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public override async ValueTask<ValueWebSocketReceiveResult> ReceiveAsync(Memory<byte> buffer, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_current is null)
        {
            if (_closeDelivered)
            {
                throw new WebSocketException(WebSocketError.InvalidState, "The websocket is closed.");
            }

            _current = await _messages.ReceiveAsync(cancellationToken).ConfigureAwait(false);
            _offset = 0;
            if (_current is null)
            {
                WebSocketCloseInfo info = await _messages.Completion.ConfigureAwait(false);
                ThrowIfFailed(info);
                _closeDelivered = true;
                return new ValueWebSocketReceiveResult(0, WebSocketMessageType.Close, true);
            }
        }

        WebSocketMessage message = _current;
        int count = Math.Min(buffer.Length, message.Length - _offset);
        message.Payload.Slice(_offset, count).CopyTo(buffer);
        _offset += count;
        bool end = _offset == message.Length;
        if (end)
        {
            _current = null;
            message.Dispose();
        }

        return new ValueWebSocketReceiveResult(count, message.Type, end);
    }

    /// <inheritdoc />
    public override Task SendAsync(ArraySegment<byte> buffer, WebSocketMessageType messageType, bool endOfMessage, CancellationToken cancellationToken) =>
        SendAsync(buffer.AsMemory(), messageType, endOfMessage, cancellationToken).AsTask();

    /// <inheritdoc />
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public override async ValueTask SendAsync(
        ReadOnlyMemory<byte> buffer, WebSocketMessageType messageType, bool endOfMessage, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!_messages.Driver.Sender.CanSend)
        {
            throw new WebSocketException(WebSocketError.InvalidState, $"The websocket is {State}: no more messages may be sent.");
        }

        bool first = !_sendingMessage;
        _sendingMessage = !endOfMessage;
        await _messages.SendFragmentAsync(buffer, messageType, first, endOfMessage, cancellationToken).ConfigureAwait(false);
    }

    private static void ThrowIfFailed(WebSocketCloseInfo info)
    {
        if (info.Violation != ProtocolViolation.None)
        {
            throw new WebSocketException(WebSocketError.Faulted, $"The peer broke the protocol: {info.Violation.Describe()}.");
        }

        if (info.ReceivedStatus is null)
        {
            throw new WebSocketException(
                WebSocketError.ConnectionClosedPrematurely,
                "The connection closed without a close handshake.",
                info.Error ?? new IOException("The transport closed."));
        }
    }
}
