using System.Net;

namespace WebSocketCodec.Scale;

/// <summary>A client process's share of the load (its command line).</summary>
internal sealed record ClientSettings
{
    public required int Port { get; init; }

    public required int WebSockets { get; init; }

    public required IReadOnlyList<IPAddress> Sources { get; init; }

    public required int Seed { get; init; }

    public required TimeSpan MinInterval { get; init; }

    public required TimeSpan MaxInterval { get; init; }

    /// <summary>Handshakes under way at once.</summary>
    public int Concurrency { get; init; } = 64;

    public TimeSpan HandshakeTimeout { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>The websocket's path on the server (the perf tool's servers serve <c>/</c>; the echo sample <c>/echo</c>).</summary>
    public string Path { get; init; } = "/";
}
