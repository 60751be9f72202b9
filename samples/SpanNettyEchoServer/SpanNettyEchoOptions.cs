
namespace WebSocketCodec.Samples.SpanNettyEchoServer;

/// <summary>What the SpanNetty echo server runs.</summary>
public sealed record SpanNettyEchoOptions
{
    /// <summary>The codecs: ours (message echo), ours-frames (callbacks echo of every frame), both over HTTP/1.1 and
    /// HTTP/2 on one port; ours-h2 (ours-frames, for HTTP/2 clients);
    /// raw-h2 (an HTTP/2 server echoing every stream's DATA bytes: the HTTP/2 ceiling); builtin (SpanNetty's
    /// WebSocketServerProtocolHandler, echoes written per frame and flushed once per read), builtin-flush (the same,
    /// flushed per frame), raw (the wire bytes echoed after a canned 101: the transport's limit).</summary>
    public static IReadOnlyList<string> Codecs { get; } = ["ours", "ours-frames", "ours-h2", "builtin", "builtin-flush", "raw", "raw-h2"];

    /// <summary>The transports: socket (SpanNetty's managed sockets) or libuv.</summary>
    public static IReadOnlyList<string> Transports { get; } = ["socket", "libuv"];

    public string Host { get; init; } = "127.0.0.1";

    public int Port { get; init; } = 8080;

    public string Path { get; init; } = "/echo";

    public bool Tls { get; init; }

    public string Codec { get; init; } = "ours";

    public string Transport { get; init; } = "socket";

    /// <summary>Event loop threads for connections (0: one per core).</summary>
    public int Threads { get; init; }

    /// <summary>Limits and timeouts of our codec's websockets.</summary>
    public WebSocketSessionOptions Session { get; init; } = WebSocketSessionOptions.Default;

    /// <summary>Told how each websocket of our codec ended (for logs and tests).</summary>
    public Action<WebSocketCloseInfo>? Ended { get; init; }
}
