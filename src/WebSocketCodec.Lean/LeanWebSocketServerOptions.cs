using System.Net;
using System.Net.Security;

namespace WebSocketCodec.Lean;

/// <summary>How a <see cref="LeanWebSocketServer"/> listens and what it accepts: pass it to
/// <see cref="LeanWebSocketServer.Start"/> or <see cref="LeanWebSocketServer.StartMessages"/> to choose the address,
/// the paths served, TLS and the loops, and, in <see cref="Accept"/>, the handshake and the websockets'
/// limits.</summary>
public sealed class LeanWebSocketServerOptions
{
    /// <summary>Where to listen: 127.0.0.1 and a free port by default (<see cref="IPAddress.IPv6Any"/> listens on IPv4
    /// too).</summary>
    public IPEndPoint EndPoint { get; set; } = new(IPAddress.Loopback, 0);

    /// <summary>Event loops (threads), each with its share of the connections: one per core by default.</summary>
    public int LoopCount { get; set; } = Environment.ProcessorCount;

    /// <summary>The receive buffer each loop shares among its connections, and so the most one read takes: 64 KiB by
    /// default (4 KiB to 16 MiB). Larger reads make fewer system calls for a connection that sends much at once, smaller
    /// ones hand its echoes back sooner (the peer sends on while the rest is parsed).</summary>
    public int ReceiveBufferSize { get; set; } = 64 * 1024;

    /// <summary>The listening socket's backlog: 1024 by default.</summary>
    public int Backlog { get; set; } = 1024;

    /// <summary>What the handshake accepts (origins, subprotocols, permessage-deflate, the open-websocket cap, the
    /// handshake timeout, the head's bound) and the websockets' limits and timeouts
    /// (<see cref="WebSocketAcceptOptions.Session"/>).</summary>
    public WebSocketAcceptOptions Accept { get; set; } = new();

    /// <summary>The one path served (404 for others), e.g. <c>/echo</c>; null serves every path (the application sees
    /// <see cref="LeanWebSocketRequest.Path"/>).</summary>
    public string? Path { get; set; }

    /// <summary>Which paths are served (404 for others) when more than one is: given the path (the target before
    /// <c>?</c>), whether it is served. Used when <see cref="Path"/> is null; null with it serves every path.</summary>
    public Func<string, bool>? IsPathServed { get; set; }

    /// <summary>TLS for every connection (<c>wss://</c>), through <see cref="SslStream"/>; null for cleartext. ALPN, when
    /// set, must offer <c>http/1.1</c> (HTTP/2 websockets stay on Kestrel).</summary>
    public SslServerAuthenticationOptions? Tls { get; set; }

    /// <summary>How long <see cref="LeanWebSocketServer.DisposeAsync"/> waits for the websockets' close handshakes
    /// (Close 1001) before it tears the rest down: 5 s by default.</summary>
    public TimeSpan ShutdownTimeout { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>Told of failures no websocket can report: a listener factory that threw, a failure below the driver, an
    /// accept paused for want of descriptors. Null ignores them.</summary>
    public Action<Exception>? OnError { get; set; }

    internal void Validate()
    {
        ArgumentNullException.ThrowIfNull(EndPoint);
        ArgumentNullException.ThrowIfNull(Accept);
        ArgumentOutOfRangeException.ThrowIfLessThan(LoopCount, 1, nameof(LoopCount));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(LoopCount, 1024, nameof(LoopCount));
        ArgumentOutOfRangeException.ThrowIfLessThan(ReceiveBufferSize, 4096, nameof(ReceiveBufferSize));
        ArgumentOutOfRangeException.ThrowIfGreaterThan(ReceiveBufferSize, 16 * 1024 * 1024, nameof(ReceiveBufferSize));
        ArgumentOutOfRangeException.ThrowIfLessThan(Backlog, 1, nameof(Backlog));
        if (Path is { } path && !path.StartsWith('/'))
        {
            throw new ArgumentException("A path starts with '/'.", nameof(Path));
        }
    }
}
