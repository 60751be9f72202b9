namespace WebSocketCodec.SpanNetty;

/// <summary>How a websocket uses its SpanNetty channel once its handshake is done: pass it to the upgrade handlers or
/// to <c>Http2WebSocketServer.Configure</c> to change the size of the output buffers. The protocol's limits, timeouts
/// and water marks are <see cref="WebSocketSessionOptions"/>.</summary>
public sealed record WebSocketChannelHandlerOptions
{
    /// <summary>The defaults.</summary>
    public static WebSocketChannelHandlerOptions Default { get; } = new();

    /// <summary>The size of the pooled buffers outbound frames are gathered into (each is one write; larger frames get a
    /// buffer of their own size).</summary>
    public int OutputChunkSize { get; init; } = 16 * 1024;
}
