namespace WebSocketCodec.Samples.WebSocketProxy;

/// <summary>Where the proxy listens and where it relays.</summary>
public sealed record WebSocketProxyOptions
{
    /// <summary>The address to listen on.</summary>
    public string Host { get; init; } = "127.0.0.1";

    /// <summary>The port (0: any free port).</summary>
    public int Port { get; init; } = 8081;

    /// <summary>Serve TLS (ALPN h2 and http/1.1) with a self-signed certificate made at start.</summary>
    public bool Tls { get; init; }

    /// <summary>The HTTP/1.1 websocket backend, e.g. <c>ws://127.0.0.1:8080</c>; request paths are kept.</summary>
    public Uri Backend { get; init; } = new("ws://127.0.0.1:8080");
}
