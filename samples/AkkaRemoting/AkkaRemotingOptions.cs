namespace WebSocketCodec.Samples.AkkaRemoting;

/// <summary>How a node of the sample listens, and (client) where the server is and how many messages to send.</summary>
public sealed record AkkaRemotingOptions
{
    /// <summary>The server's actor system name (in its address: akka.ws://server@host:port).</summary>
    public const string ServerSystem = "server";

    /// <summary>The client's actor system name.</summary>
    public const string ClientSystem = "client";

    /// <summary>The address to listen on (every node listens: Akka associations go both ways).</summary>
    public string Host { get; init; } = "127.0.0.1";

    /// <summary>The port (0: any free port).</summary>
    public int Port { get; init; }

    /// <summary>The host other nodes reach this one at (a proxy's), when it differs from <see cref="Host"/>.</summary>
    public string? PublicHost { get; init; }

    /// <summary>The port other nodes reach this one at (a proxy's), when it differs from the bound one; 0: the bound
    /// one.</summary>
    public int PublicPort { get; init; }

    /// <summary>wss:// (akka.wss addresses) with a self-signed certificate made at start; peers' certificates are not
    /// checked (a demonstration, not a deployment).</summary>
    public bool Tls { get; init; }

    /// <summary>Outbound associations as HTTP/2 streams.</summary>
    public bool Http2 { get; init; }

    /// <summary>(Client) the server node's address, e.g. <c>akka.ws://server@127.0.0.1:5100</c>.</summary>
    public string? ServerAddress { get; init; }

    /// <summary>(Client) how many messages to send.</summary>
    public int Count { get; init; } = 5;

    /// <summary>(Client) the server address to use: <see cref="ServerAddress"/>, or the default server on this
    /// machine.</summary>
    public string ServerAddressOrDefault() => ServerAddress ?? $"akka.{(Tls ? "wss" : "ws")}://{ServerSystem}@127.0.0.1:5100";
}
