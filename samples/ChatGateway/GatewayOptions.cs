namespace WebSocketCodec.Samples.ChatGateway;

/// <summary>Where the gateway listens and which chat nodes it spreads websockets over.</summary>
public sealed record GatewayOptions
{
    /// <summary>The address to listen on.</summary>
    public string Host { get; init; } = "127.0.0.1";

    /// <summary>The port (0: any free port).</summary>
    public int Port { get; init; } = 8080;

    /// <summary>Serve TLS with a self-signed certificate made at start.</summary>
    public bool Tls { get; init; }

    /// <summary>The chat nodes' base URLs (<c>http://host:port</c>, or <c>https://</c>).</summary>
    public IReadOnlyList<Uri> Nodes { get; init; } = [];

    /// <summary>HTTP/2 to the nodes (websockets as extended CONNECT streams, many on one connection; cleartext nodes by
    /// prior knowledge), or HTTP/1.1 (an upgraded connection per websocket).</summary>
    public bool Http2ToNodes { get; init; } = true;

    /// <summary>How often each node's <c>/health</c> is asked; a node that fails twice in a row gets no new websockets
    /// until it answers again.</summary>
    public TimeSpan HealthInterval { get; init; } = TimeSpan.FromSeconds(1);
}
