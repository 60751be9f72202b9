namespace WebSocketCodec.SpanNetty;

/// <summary>The user event <see cref="SslStreamHandler"/> fires down the pipeline when its handshake completed.</summary>
public sealed class SslStreamHandshakeCompleted
{
    /// <summary>The event.</summary>
    public static readonly SslStreamHandshakeCompleted Instance = new();

    private SslStreamHandshakeCompleted()
    {
    }
}
