namespace WebSocketCodec.SpanNetty;

/// <summary>How a websocket uses its SpanNetty channel once its handshake is done (the protocol's limits and timeouts
/// are <see cref="WebSocketSessionOptions"/>).</summary>
public sealed record WebSocketChannelHandlerOptions
{
    /// <summary>The defaults.</summary>
    public static WebSocketChannelHandlerOptions Default { get; } = new();

    /// <summary>The size of the pooled buffers the read cycle's frames are gathered into (each is one write; larger
    /// frames get a buffer of their own size).</summary>
    public int OutputChunkSize { get; init; } = 16 * 1024;

    /// <summary>Whether reading pauses (<c>AutoRead</c> off) while the channel is not writable and the callbacks answer
    /// what they read (they sent from <c>OnFrame</c> or <c>OnReadCompleteAsync</c> in the latest read), so a peer that sends
    /// faster than it reads cannot grow the outbound buffer without bound. Callbacks that only consume keep reading
    /// (their application's <c>SendAsync</c> waits at the high water mark instead), so two peers that stream to each
    /// other never stop each other. On by default.</summary>
    public bool PauseReadsWhenUnwritable { get; init; } = true;
}
