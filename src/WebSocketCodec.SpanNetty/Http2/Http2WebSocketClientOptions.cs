using System.Net.Security;

namespace WebSocketCodec.SpanNetty;

/// <summary>How <see cref="Http2WebSocketClient"/> sets up its HTTP/2 connection: pass it to
/// <see cref="Http2WebSocketClient.ConnectAsync"/> or <see cref="Http2WebSocketClient.Configure"/> for TLS options, the
/// connect timeout, the windows or the END_STREAM timeout. Each websocket's own handshake options are the
/// <see cref="WebSocketClientOptions"/> given when it is opened.</summary>
public sealed record Http2WebSocketClientOptions
{
    /// <summary>The defaults.</summary>
    public static Http2WebSocketClientOptions Default { get; } = new();

    /// <summary>TLS for <c>wss://</c> (ALPN is set to h2; <c>TargetHost</c> defaults to the URI's host); null: the
    /// system's certificate checks.</summary>
    public SslClientAuthenticationOptions? Tls { get; init; }

    /// <summary>How long connecting, TLS and the server's first SETTINGS may take together.</summary>
    public TimeSpan ConnectTimeout { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>Bytes the server may send on one stream beyond what its websocket has read (SETTINGS_INITIAL_WINDOW_SIZE).</summary>
    public int StreamWindowSize { get; init; } = 128 * 1024;

    /// <summary>Bytes the server may send on the whole connection beyond what its websockets have read: the sum of the
    /// streams' windows keeps a websocket whose application stops reading from stalling the others.</summary>
    public int ConnectionWindowSize { get; init; } = 16 * 1024 * 1024;

    /// <summary>How long, after our END_STREAM, the server has to end its side of a stream before it is reset.</summary>
    public TimeSpan EndStreamTimeout { get; init; } = TimeSpan.FromSeconds(5);

    internal void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(ConnectTimeout, TimeSpan.Zero, nameof(ConnectTimeout));
        ArgumentOutOfRangeException.ThrowIfLessThan(StreamWindowSize, 65_535, nameof(StreamWindowSize));
        ArgumentOutOfRangeException.ThrowIfLessThan(ConnectionWindowSize, 65_535, nameof(ConnectionWindowSize));
        ArgumentOutOfRangeException.ThrowIfLessThan(EndStreamTimeout, TimeSpan.Zero, nameof(EndStreamTimeout));
    }
}
