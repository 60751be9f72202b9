using System.Buffers;
using System.IO.Pipelines;
using System.Runtime.ExceptionServices;

namespace WebSocketCodec.Pipelines;

/// <summary>One websocket over an <see cref="IDuplexPipe"/> after the opening handshake: what Kestrel's endpoints and
/// the clients hand you, and what you create over a pipe of your own; run it with the callbacks API (<c>RunAsync</c>)
/// or the message API (<see cref="RunMessages"/>).</summary>
/// <remarks>It is the core <see cref="WebSocketDriver"/> (framing, the close handshake, timers, backpressure, senders,
/// groups, telemetry) over the pipe. Each <c>ReadAsync</c> hands every whole frame in the buffer to the listener
/// (payloads unmasked in place, no frame object, no allocation), then one <c>AdvanceTo</c>, then one flush of
/// everything the listener and the protocol wrote. A transport that can end one direction alone, or be torn down,
/// implements <see cref="IWebSocketPipeTransport"/> (TCP FIN, END_STREAM; an abort): a failed connection ends its
/// output right after its Close and discards the peer's side until its end, so a reset never erases our Close, and a
/// peer that stopped reading is cut off.</remarks>
public sealed class WebSocketConnection : IDisposable, IAsyncDisposable
{
    private readonly PipePort _port;

    /// <summary>Creates the websocket for one end of an upgraded connection.</summary>
    /// <param name="transport">The connection's bytes after the handshake (frames that came with the handshake
    /// included).</param>
    /// <param name="role">Which end this is: a server expects masked input, a client masks its output.</param>
    /// <param name="options">Limits and timeouts.</param>
    /// <param name="subprotocol">The negotiated subprotocol, for the application to see.</param>
    public WebSocketConnection(IDuplexPipe transport, WebSocketRole role, WebSocketSessionOptions? options = null, string? subprotocol = null)
    {
        ArgumentNullException.ThrowIfNull(transport);
        _port = new PipePort(transport);
        Driver = new WebSocketDriver(_port, role, options, subprotocol);
        Driver.WritabilityChanged += (_, writable) => WritabilityChanged?.Invoke(this, writable);
    }

    /// <summary>The websocket itself: what this connection runs over its pipe (and what joins a
    /// <see cref="WebSocketGroup"/>).</summary>
    public WebSocketDriver Driver { get; }

    /// <summary>Whether outbound bytes waiting for the transport are under the high water mark (after crossing it:
    /// until they drop to the low mark). Sends from other threads wait, and the read loop pauses, while it is false.</summary>
    public bool IsWritable => Driver.IsWritable;

    /// <summary>Outbound bytes appended and not yet taken by the transport.</summary>
    public long UnflushedBytes => Driver.UnflushedBytes;

    /// <summary>Raised (on the thread pool) when <see cref="IsWritable"/> changes.</summary>
    public event Action<WebSocketConnection, bool>? WritabilityChanged;

    /// <summary>Turns permessage-deflate on as the handshake negotiated it (before <see cref="RunAsync(IWebSocketFrameListener, CancellationToken)"/>):
    /// see <see cref="WebSocketDriver.EnablePerMessageDeflate"/>. The hosts call it for you; call it yourself only after
    /// a handshake of your own over a raw transport (<see cref="WebSocketAcceptResult.Deflate"/>).</summary>
    /// <param name="parameters">What the handshake settled.</param>
    /// <param name="options">This side's level and threshold.</param>
    /// <exception cref="InvalidOperationException">The websocket is running already.</exception>
    public void EnablePerMessageDeflate(DeflateParameters parameters, PerMessageDeflateOptions options) =>
        Driver.EnablePerMessageDeflate(parameters, options);

    /// <summary>The permessage-deflate parameters in force, or null when the extension was not negotiated.</summary>
    public DeflateParameters? Deflate => Driver.Deflate;

    /// <summary>Which end this is.</summary>
    public WebSocketRole Role => Driver.Role;

    /// <summary>The limits and timeouts in force.</summary>
    public WebSocketSessionOptions Options => Driver.Options;

    /// <summary>The negotiated subprotocol, if any.</summary>
    public string? Subprotocol => Driver.Subprotocol;

    /// <summary>The protocol state.</summary>
    public WebSocketSessionState State => Driver.State;

    /// <summary>Sends frames on this websocket.</summary>
    public WebSocketFrameSender Sender => Driver.Sender;

    /// <summary>Completes when the websocket has ended and the transport is closed.</summary>
    public Task<WebSocketCloseInfo> Completion => Driver.Completion;

    /// <summary>Whether the read loop was started (by <c>RunAsync</c>).</summary>
    public bool IsStarted => Driver.IsStarted;

    /// <summary>Runs the callbacks API: hands <paramref name="listenerFactory"/> the frame sender, then reads until the
    /// websocket ends, handing data frames to the listener it returned.</summary>
    /// <param name="listenerFactory">Given <see cref="Sender"/>, returns the listener of this websocket.</param>
    /// <param name="cancellationToken">Cancelling aborts the websocket.</param>
    /// <returns>How the websocket ended.</returns>
    public Task<WebSocketCloseInfo> RunAsync(
        Func<WebSocketFrameSender, IWebSocketFrameListener> listenerFactory, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(listenerFactory);
        return RunAsync(listenerFactory(Sender), cancellationToken);
    }

    /// <summary>Runs the message API: starts the read loop with a <see cref="MessageWebSocket"/>'s listener and returns
    /// it (receive whole messages, send from any thread, close).</summary>
    /// <param name="pool">The pool for received messages; the session's pool when null.</param>
    /// <param name="maxQueuedMessages">Received messages held before reading pauses (backpressure).</param>
    /// <param name="maxQueuedBytes">Bytes of received messages held before reading pauses (one larger message is still
    /// taken, alone).</param>
    /// <param name="cancellationToken">Cancelling aborts the websocket.</param>
    /// <returns>The message API of this websocket.</returns>
    public MessageWebSocket RunMessages(
        ArrayPool<byte>? pool = null, int maxQueuedMessages = 64, long maxQueuedBytes = MessageWebSocket.DefaultMaxQueuedBytes,
        CancellationToken cancellationToken = default)
    {
        var messages = new MessageWebSocket(Sender, pool, maxQueuedMessages, maxQueuedBytes);
        _ = RunAsync(messages.Listener, cancellationToken);
        return messages;
    }

    /// <summary>Reads until the websocket ends, handing data frames to <paramref name="listener"/>; then closes the
    /// transport. Cancelling aborts the websocket (for a graceful end call <see cref="CloseAsync"/>).</summary>
    /// <param name="listener">Receives the data frames, writability changes and the end.</param>
    /// <param name="cancellationToken">Cancelling aborts the websocket.</param>
    /// <returns>How the websocket ended (also reported to <see cref="IWebSocketFrameListener.OnClose"/>).</returns>
    public async Task<WebSocketCloseInfo> RunAsync(IWebSocketFrameListener listener, CancellationToken cancellationToken = default)
    {
        Driver.Start(listener);
        using (cancellationToken.UnsafeRegister(static state => ((WebSocketDriver)state!).Abort(), Driver))
        {
            await _port.RunAsync(Driver).ConfigureAwait(false);
            WebSocketCloseInfo info = await Driver.Completion.ConfigureAwait(false);
            if (Driver.CloseCallbackError is { } error)
            {
                ExceptionDispatchInfo.Throw(error); // the listener's OnClose failed: its caller sees it
            }

            return info;
        }
    }

    /// <summary>Closes: sends a Close (unless one was sent), runs the read loop if the application never started it (data
    /// frames are then discarded), and completes when the websocket has ended: the peer's Close arrived, or the close
    /// timeout passed (then the transport is closed anyway). Safe from any thread; a listener callback must not block on
    /// the returned task (its loop reads the peer's Close).</summary>
    /// <returns>How the websocket ended (the same as <see cref="Completion"/>).</returns>
    public Task<WebSocketCloseInfo> CloseAsync(
        CloseStatus status = CloseStatus.NormalClosure, string? reason = null, CancellationToken cancellationToken = default)
    {
        if (!IsStarted)
        {
            _ = RunAsync(DiscardingListener.Instance, CancellationToken.None);
        }

        return Driver.CloseAsync(status, reason, cancellationToken);
    }

    /// <summary>Ends the websocket at once, without a close handshake.</summary>
    public void Abort() => Driver.Abort();

    /// <summary>Ends the websocket gracefully if it has not ended (<see cref="CloseAsync"/> with 1000, bounded by
    /// the close timeout), then releases it.</summary>
    /// <returns>Completes when the websocket has ended and its buffers are returned.</returns>
    public async ValueTask DisposeAsync()
    {
        if (!Completion.IsCompleted)
        {
            await CloseAsync().ConfigureAwait(false);
        }

        Dispose();
    }

    /// <summary>Aborts the websocket if it runs; returns its buffers if it never ran.</summary>
    public void Dispose() => Driver.Dispose();

    private sealed class DiscardingListener : IWebSocketFrameListener
    {
        public static readonly DiscardingListener Instance = new();

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
        }
    }
}
