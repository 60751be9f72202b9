using System.Buffers;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;
using System.Text;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// The message API: receive whole text and binary messages in pooled buffers, send messages or fragments from any
/// thread, close from either side with a timeout. Control frames, keep-alive, idle timeout and limits are applied by
/// the underlying <see cref="WebSocketConnection"/>, whose read loop runs from <see cref="Start"/> on.
/// </summary>
public sealed class MessageWebSocket : IAsyncDisposable
{
    private readonly WebSocketConnection _connection;
    private readonly MessageQueueListener _listener;
    private Task<WebSocketCloseInfo>? _run;

    /// <summary>Wraps <paramref name="connection"/>; call <see cref="Start"/> to begin reading.</summary>
    /// <param name="connection">A websocket that is not running yet.</param>
    /// <param name="pool">The pool for received messages; the session's pool
    /// (<see cref="WebSocketSessionOptions.Pool"/>) when null.</param>
    /// <param name="maxQueuedMessages">Received messages held before reading pauses (backpressure).</param>
    /// <param name="maxQueuedBytes">Bytes of received messages held before reading pauses (one message larger than
    /// this is still taken, alone). 4 MiB by default.</param>
    public MessageWebSocket(WebSocketConnection connection, ArrayPool<byte>? pool = null, int maxQueuedMessages = 64, long maxQueuedBytes = 4 * 1024 * 1024)
    {
        ArgumentNullException.ThrowIfNull(connection);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxQueuedMessages);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxQueuedBytes);
        _connection = connection;
        _listener = new MessageQueueListener(pool ?? connection.Options.Pool ?? ArrayPool<byte>.Shared, maxQueuedMessages, maxQueuedBytes);
    }

    /// <summary>The underlying websocket.</summary>
    public WebSocketConnection Connection => _connection;

    /// <summary>The negotiated subprotocol.</summary>
    public string? Subprotocol => _connection.Subprotocol;

    /// <summary>Completes with how the websocket ended.</summary>
    public Task<WebSocketCloseInfo> Completion => _connection.Completion;

    /// <summary>Starts the read loop.</summary>
    public MessageWebSocket Start(CancellationToken cancellationToken = default)
    {
        _run ??= _connection.RunAsync(_listener, cancellationToken);
        return this;
    }

    /// <summary>The next whole message, or null once the websocket has ended and every message was received
    /// (see <see cref="Completion"/> for why). Dispose each message.</summary>
    public ValueTask<WebSocketMessage?> ReceiveAsync(CancellationToken cancellationToken = default)
    {
        Start(CancellationToken.None);
        return _listener.ReceiveAsync(cancellationToken);
    }

    /// <summary>Sends a whole message in one frame.</summary>
    public ValueTask SendAsync(ReadOnlyMemory<byte> payload, WebSocketMessageType type, CancellationToken cancellationToken = default) =>
        _connection.Sender.SendAsync(ToOpcode(type), payload, fin: true, cancellationToken);

    /// <summary>Sends a text message.</summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask SendTextAsync(string text, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(text);
        byte[] buffer = ArrayPool<byte>.Shared.Rent(Encoding.UTF8.GetMaxByteCount(text.Length));
        try
        {
            int length = Encoding.UTF8.GetBytes(text, buffer);
            await SendAsync(buffer.AsMemory(0, length), WebSocketMessageType.Text, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    /// <summary>Sends one fragment: the first of a message carries its type, later ones continue it; the last has
    /// <paramref name="endOfMessage"/> set.</summary>
    public ValueTask SendFragmentAsync(
        ReadOnlyMemory<byte> payload, WebSocketMessageType type, bool first, bool endOfMessage, CancellationToken cancellationToken = default) =>
        _connection.Sender.SendAsync(first ? ToOpcode(type) : WebSocketOpcode.Continuation, payload, endOfMessage, cancellationToken);

    /// <summary>Closes: sends our Close (if none was sent), then waits for the peer's and for the transport to close,
    /// at most the close timeout (then the transport is closed anyway).</summary>
    public async Task<WebSocketCloseInfo> CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        Start(CancellationToken.None);
        _listener.ReleasePause(); // the peer's Close must be read even if unreceived messages fill the queue
        return await _connection.CloseAsync(status, reason, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Ends at once, without a close handshake.</summary>
    public void Abort() => _connection.Abort();

    /// <summary>Aborts if still open, waits for the read loop, and returns the buffers of unreceived messages.</summary>
    public async ValueTask DisposeAsync()
    {
        if (!_connection.Completion.IsCompleted)
        {
            _connection.Abort();
        }

        if (_run is not null)
        {
            await _run.ConfigureAwait(false);
        }
        else
        {
            _connection.Dispose();
        }

        _listener.DisposeQueued();
    }

    internal static WebSocketOpcode ToOpcode(WebSocketMessageType type) => type switch
    {
        WebSocketMessageType.Text => WebSocketOpcode.Text,
        WebSocketMessageType.Binary => WebSocketOpcode.Binary,
        _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Send Close with CloseAsync."),
    };
}
