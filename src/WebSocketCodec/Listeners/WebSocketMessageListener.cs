using System.Buffers;
using System.Net.WebSockets;

namespace WebSocketCodec;

/// <summary>The span-callback message API on every host, a frame listener that hands whole messages to a
/// <see cref="WebSocketMessageHandler{TSender}"/> on the read loop: reach for it when each message is handled before
/// the call returns (an echo, a parse, a broadcast); to await work per message use
/// <see cref="MessageWebSocket"/>.</summary>
/// <remarks>A message that arrives in one frame is passed straight from the input buffer; fragments are joined by
/// <see cref="MessageAssembler"/> in a pooled buffer (bounded by the session's message limit).</remarks>
/// <typeparam name="TSender">The host's frame sender, handed to the handler with each message.</typeparam>
public sealed class WebSocketMessageListener<TSender> : IWebSocketFrameListener, IDisposable
{
    private readonly TSender _sender;
    private readonly WebSocketMessageHandler<TSender> _handler;
    private readonly MessageAssembler _assembler;
    private readonly Action<WebSocketCloseInfo>? _onClose;

    /// <summary>Creates the listener for the websocket of <paramref name="sender"/>.</summary>
    /// <param name="sender">The websocket's frame sender.</param>
    /// <param name="handler">Receives each whole message.</param>
    /// <param name="pool">Where fragmented messages are joined; <see cref="ArrayPool{T}.Shared"/> when null.</param>
    /// <param name="onClose">Called once when the websocket has ended.</param>
    public WebSocketMessageListener(
        TSender sender, WebSocketMessageHandler<TSender> handler, ArrayPool<byte>? pool = null, Action<WebSocketCloseInfo>? onClose = null)
    {
        ArgumentNullException.ThrowIfNull(sender);
        ArgumentNullException.ThrowIfNull(handler);
        _sender = sender;
        _handler = handler;
        _assembler = new MessageAssembler(pool);
        _onClose = onClose;
    }

    /// <inheritdoc />
    public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
    {
        if (_assembler.TryComplete(opcode, fin, payload, out bool isText, out ReadOnlySpan<byte> message))
        {
            _handler(_sender, isText ? WebSocketMessageType.Text : WebSocketMessageType.Binary, message);
        }
    }

    /// <inheritdoc />
    public void OnClose(WebSocketCloseInfo info)
    {
        Dispose();
        _onClose?.Invoke(info);
    }

    /// <summary>Returns the assembly buffer to its pool.</summary>
    public void Dispose() => _assembler.Dispose();
}
