namespace WebSocketCodec.SpanNetty;

/// <summary>How an HTTP/2 connection that serves websockets is set up (<see cref="Http2WebSocketServer"/>): pass it to
/// <c>Http2WebSocketServer.Configure</c> to change the streams per connection, the stream window or the END_STREAM
/// timeout.</summary>
public sealed record Http2WebSocketServerOptions
{
    /// <summary>The defaults.</summary>
    public static Http2WebSocketServerOptions Default { get; } = new();

    /// <summary>Concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS): websockets and refused requests.</summary>
    public int MaxConcurrentStreams { get; init; } = 128;

    /// <summary>Bytes a peer may send on one stream beyond what its websocket has read (SETTINGS_INITIAL_WINDOW_SIZE).
    /// The connection window is (<see cref="MaxConcurrentStreams"/> + 1) × this, so a websocket whose application stops
    /// reading holds only its own window and never stalls the others on its connection (as
    /// <c>ConfigureHttp2ForWebSockets</c> sizes Kestrel's). The price is memory: up to that many bytes per connection.</summary>
    public int StreamWindowSize { get; init; } = 128 * 1024;

    /// <summary>How long, after our END_STREAM, a peer has to end its side of a stream before it is reset.</summary>
    public TimeSpan EndStreamTimeout { get; init; } = TimeSpan.FromSeconds(5);

    internal int ConnectionWindowSize
    {
        get
        {
            long window = ((long)MaxConcurrentStreams + 1) * StreamWindowSize;
            return window > int.MaxValue
                ? throw new ArgumentOutOfRangeException(nameof(StreamWindowSize), "The streams' windows together must stay below 2 GiB, the largest HTTP/2 window.")
                : (int)window;
        }
    }

    internal void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(MaxConcurrentStreams, nameof(MaxConcurrentStreams));
        ArgumentOutOfRangeException.ThrowIfLessThan(StreamWindowSize, 65_535, nameof(StreamWindowSize));
        ArgumentOutOfRangeException.ThrowIfLessThan(EndStreamTimeout, TimeSpan.Zero, nameof(EndStreamTimeout));
        _ = ConnectionWindowSize;
    }
}
