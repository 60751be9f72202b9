namespace WebSocketCodec.SpanNetty;

/// <summary>The user event <see cref="SslStreamHandler"/> fires down the pipeline when its handshake completed: watch
/// for it in a handler that must wait for TLS before it acts, as <see cref="AlpnProtocolSelector"/> does.</summary>
public sealed class SslStreamHandshakeCompleted
{
    /// <summary>The event.</summary>
    public static readonly SslStreamHandshakeCompleted Instance = new();

    private SslStreamHandshakeCompleted()
    {
    }
}
