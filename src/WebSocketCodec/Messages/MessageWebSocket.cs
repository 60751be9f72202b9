using System.Buffers;
using System.Net.WebSockets;
using System.Runtime.CompilerServices;
using System.Text;

namespace WebSocketCodec;

/// <summary>The message API's websocket, over any host: reach for it when you want whole text and binary messages in
/// pooled buffers with async receive, and sends from any thread, rather than callbacks on the read loop
/// (<see cref="IWebSocketFrameListener"/>, <see cref="WebSocketMessageListener{TSender}"/>). It sends messages or
/// fragments and closes from either side with a timeout.</summary>
/// <remarks>Control frames, keep-alive, idle timeout and limits are the <see cref="WebSocketDriver"/>'s. The host runs
/// the driver with <see cref="Listener"/>: Pipelines and Kestrel with <c>WebSocketConnection.RunMessages</c> (or the
/// endpoint and client methods that return one), a host that takes a listener factory (SpanNetty's upgrade handlers,
/// <c>WebSocketConnection.RunAsync</c>) with <see cref="Listen"/>.</remarks>
public sealed class MessageWebSocket : IAsyncDisposable
{
    private readonly WebSocketDriver _driver;
    private readonly MessageQueueListener _listener;

    /// <summary>The message API of the websocket <paramref name="sender"/> sends on; run that websocket with
    /// <see cref="Listener"/>.</summary>
    /// <param name="sender">The websocket's sender (the driver must not be running yet).</param>
    /// <param name="pool">The pool for received messages; the session's pool
    /// (<see cref="WebSocketSessionOptions.Pool"/>) when null.</param>
    /// <param name="maxQueuedMessages">Received messages held before reading pauses (backpressure).</param>
    /// <param name="maxQueuedBytes">Bytes of received messages held before reading pauses (one message larger than
    /// this is still taken, alone). 4 MiB by default.</param>
    public MessageWebSocket(WebSocketFrameSender sender, ArrayPool<byte>? pool = null, int maxQueuedMessages = 64, long maxQueuedBytes = DefaultMaxQueuedBytes)
    {
        ArgumentNullException.ThrowIfNull(sender);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxQueuedMessages);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(maxQueuedBytes);
        _driver = sender.Driver;
        _listener = new MessageQueueListener(pool ?? _driver.Options.Pool ?? ArrayPool<byte>.Shared, maxQueuedMessages, maxQueuedBytes);
    }

    /// <summary>The default bound of <c>maxQueuedBytes</c>: 4 MiB.</summary>
    public const long DefaultMaxQueuedBytes = 4 * 1024 * 1024;

    /// <summary>A listener factory for a host that takes one: each websocket gets a <see cref="MessageWebSocket"/>,
    /// handed to <paramref name="opened"/> on the websocket's loop before its first read (start the application's work
    /// from there; do not block).</summary>
    /// <param name="opened">Called once per websocket with its message API.</param>
    /// <param name="pool">The pool for received messages; the session's pool when null.</param>
    /// <param name="maxQueuedMessages">Received messages held before reading pauses.</param>
    /// <param name="maxQueuedBytes">Bytes of received messages held before reading pauses.</param>
    /// <returns>The factory: given a websocket's sender, the listener to run it with.</returns>
    public static Func<WebSocketFrameSender, IWebSocketFrameListener> Listen(
        Action<MessageWebSocket> opened, ArrayPool<byte>? pool = null, int maxQueuedMessages = 64, long maxQueuedBytes = DefaultMaxQueuedBytes)
    {
        ArgumentNullException.ThrowIfNull(opened);
        return sender =>
        {
            var messages = new MessageWebSocket(sender, pool, maxQueuedMessages, maxQueuedBytes);
            opened(messages);
            return messages.Listener;
        };
    }

    /// <summary>What the host runs the websocket with: it queues whole messages for <see cref="ReceiveAsync"/> and pauses
    /// reading while the queue is full.</summary>
    public IWebSocketFrameListener Listener => _listener;

    /// <summary>The underlying websocket.</summary>
    public WebSocketDriver Driver => _driver;

    /// <summary>The negotiated subprotocol.</summary>
    public string? Subprotocol => _driver.Subprotocol;

    /// <summary>Completes with how the websocket ended.</summary>
    public Task<WebSocketCloseInfo> Completion => _driver.Completion;

    /// <summary>The next whole message, or null once the websocket has ended and every message was received
    /// (see <see cref="Completion"/> for why). Dispose each message.</summary>
    public ValueTask<WebSocketMessage?> ReceiveAsync(CancellationToken cancellationToken = default) =>
        _listener.ReceiveAsync(cancellationToken);

    /// <summary>Sends a whole message in one frame.</summary>
    public ValueTask SendAsync(ReadOnlyMemory<byte> payload, WebSocketMessageType type, CancellationToken cancellationToken = default) =>
        _driver.Sender.SendAsync(ToOpcode(type), payload, fin: true, cancellationToken);

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
        _driver.Sender.SendAsync(first ? ToOpcode(type) : WebSocketOpcode.Continuation, payload, endOfMessage, cancellationToken);

    /// <summary>Closes: sends our Close (if none was sent), then waits for the peer's and for the transport to close,
    /// at most the close timeout (then the transport is closed anyway). Messages not received yet stop holding the
    /// loop, so the peer's Close is read.</summary>
    /// <returns>How the websocket ended.</returns>
    public Task<WebSocketCloseInfo> CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        _listener.ReleasePause(); // the peer's Close must be read even if unreceived messages fill the queue
        return _driver.CloseAsync(status, reason, cancellationToken);
    }

    /// <summary>Ends at once, without a close handshake.</summary>
    public void Abort() => _driver.Abort();

    /// <summary>Aborts if still open, waits for the websocket's end, and returns the buffers of unreceived messages (a
    /// websocket that never ran returns its own).</summary>
    public async ValueTask DisposeAsync()
    {
        _driver.Abort();
        if (_driver.IsStarted)
        {
            await _driver.Completion.ConfigureAwait(false);
        }
        else
        {
            _driver.Dispose();
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
