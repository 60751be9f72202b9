using System.Buffers;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.EchoServer;

/// <summary>How the echo server listens and which codec serves <c>/echo</c>.</summary>
public sealed record EchoServerOptions
{
    /// <summary>The address to listen on.</summary>
    public string Host { get; init; } = "127.0.0.1";

    /// <summary>The port (0: any free port).</summary>
    public int Port { get; init; } = 8080;

    /// <summary>Serve TLS with a self-signed certificate made at start.</summary>
    public bool Tls { get; init; }

    /// <summary><c>kestrel</c> (HTTP/1.1 and HTTP/2, the page) or <c>lean</c> (WebSocketCodec.Lean: HTTP/1.1
    /// websockets only, Linux).</summary>
    public string Transport { get; init; } = "kestrel";

    /// <summary><c>ours</c> (WebSocketCodec) or <c>builtin</c> (ASP.NET Core's WebSockets).</summary>
    public string Codec { get; init; } = "ours";

    /// <summary>Keep-alive: a Ping when the websocket has been quiet this long, and the peer given up when its Pong
    /// takes as long again; zero for off; null for the library's default (a Ping after 30 s, 15 s for the Pong).</summary>
    public TimeSpan? KeepAlive { get; init; }

    /// <summary>The most websockets open at once (503 beyond); null for the library's default (no cap).</summary>
    public int? MaxWebSockets { get; init; }

    /// <summary>Accept permessage-deflate (RFC 7692) on <c>/echo</c> when the client offers it: with
    /// <see cref="DeflateOptions"/>, by default the library's (no context takeover either way, level Fastest, messages
    /// from 32 bytes up compressed); the builtin codec: ASP.NET Core's <c>DangerousEnableCompression</c>.</summary>
    public bool Deflate { get; init; }

    /// <summary>What our codec accepts when <see cref="Deflate"/> is on (null: <see cref="PerMessageDeflateOptions"/>'s
    /// defaults), e.g. context takeover both ways when the client asks for it.</summary>
    public PerMessageDeflateOptions? DeflateOptions { get; init; }

    /// <summary>How long a peer may send nothing before it is closed with 1001; zero for no limit.</summary>
    public TimeSpan IdleTimeout { get; init; }

    /// <summary>The pool for the websockets' gathered frames and messages (e.g. a counting pool that proves every
    /// buffer came back); <see cref="ArrayPool{T}.Shared"/> if null.</summary>
    public ArrayPool<byte>? Pool { get; init; }

    /// <summary>The websocket session options these settings give.</summary>
    public WebSocketSessionOptions Session => WebSocketSessionOptions.Default with
    {
        KeepAliveInterval = KeepAlive ?? WebSocketSessionOptions.Default.KeepAliveInterval,
        KeepAliveTimeout = KeepAlive ?? WebSocketSessionOptions.Default.KeepAliveTimeout,
        IdleTimeout = IdleTimeout,
        Pool = Pool,
    };

    /// <summary>Sets what the endpoint accepts: <see cref="Session"/>, <see cref="MaxWebSockets"/> and
    /// <see cref="Deflate"/>.</summary>
    public void ConfigureAccept(WebSocketAcceptOptions accept)
    {
        ArgumentNullException.ThrowIfNull(accept);
        accept.Session = Session;
        if (MaxWebSockets is { } most)
        {
            accept.MaxConcurrentWebSockets = most;
        }

        accept.Deflate = Deflate ? DeflateOptions ?? new PerMessageDeflateOptions() : null;
    }
}
