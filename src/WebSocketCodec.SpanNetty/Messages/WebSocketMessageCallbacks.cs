using System.Buffers;
using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty;

/// <summary>
/// The message API on a SpanNetty channel: whole messages handed to a <see cref="ChannelMessageHandler"/> on the event
/// loop. A message that arrives in one frame is passed straight from the channel's buffer; fragments are joined by the
/// core's <see cref="MessageAssembler"/> in a pooled buffer (bounded by the session's message limit). Backpressure
/// follows the channel's writability: while the outbound buffer is over its high water mark, reads pause.
/// </summary>
public sealed class WebSocketMessageCallbacks : IWebSocketCallbacks, IDisposable
{
    private readonly ChannelFrameSender _sender;
    private readonly ChannelMessageHandler _handler;
    private readonly MessageAssembler _assembler;
    private readonly Action<WebSocketCloseInfo>? _onClose;

    /// <summary>Creates the callbacks for the websocket of <paramref name="sender"/>.</summary>
    public WebSocketMessageCallbacks(
        ChannelFrameSender sender, ChannelMessageHandler handler, ArrayPool<byte>? pool = null, Action<WebSocketCloseInfo>? onClose = null)
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
