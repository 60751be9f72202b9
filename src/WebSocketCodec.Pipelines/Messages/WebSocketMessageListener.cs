using System.Buffers;
using System.Net.WebSockets;

namespace WebSocketCodec.Pipelines;

/// <summary>
/// The span-callback message API: a frame listener that hands whole messages to a <see cref="WebSocketMessageHandler"/>
/// on the read loop. A message that arrives in one frame is passed straight from the input buffer; fragments are joined
/// in a pooled buffer (bounded by the maximum message size).
/// </summary>
public sealed class WebSocketMessageListener : IWebSocketFrameListener, IDisposable
{
    private readonly WebSocketFrameSender _sender;
    private readonly WebSocketMessageHandler _handler;
    private readonly MessageAssembler _assembler;
    private readonly Action<WebSocketCloseInfo>? _onClose;

    /// <summary>Creates the listener for the websocket of <paramref name="sender"/>.</summary>
    public WebSocketMessageListener(
        WebSocketFrameSender sender, WebSocketMessageHandler handler, ArrayPool<byte>? pool = null, Action<WebSocketCloseInfo>? onClose = null)
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
