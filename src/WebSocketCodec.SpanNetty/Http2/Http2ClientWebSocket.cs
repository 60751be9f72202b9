using DotNetty.Codecs.Http2;

namespace WebSocketCodec.SpanNetty;

/// <summary>A websocket that <see cref="Http2WebSocketClient.OpenAsync"/> opened on a stream of its HTTP/2 connection:
/// send on it and learn how it ended through <see cref="WebSocket"/>, and reset its stream alone with
/// <see cref="AbortAsync"/>.</summary>
public sealed class Http2ClientWebSocket
{
    internal Http2ClientWebSocket(WebSocketChannelHandler webSocket, IHttp2StreamChannel stream)
    {
        WebSocket = webSocket;
        Stream = stream;
    }

    /// <summary>The websocket: its sender, subprotocol, permessage-deflate parameters and completion.</summary>
    public WebSocketChannelHandler WebSocket { get; }

    /// <summary>The stream's child channel.</summary>
    public IHttp2StreamChannel Stream { get; }

    /// <summary>Aborts the websocket without a close handshake: RST_STREAM CANCEL on its stream only (nothing if it
    /// already ended). Completes when the stream's channel is closed.</summary>
    public Task AbortAsync() => Stream.IsOpen ? Stream.CloseAsync() : Stream.CloseCompletion;
}
