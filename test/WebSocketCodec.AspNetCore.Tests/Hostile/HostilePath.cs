namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>Which of <see cref="HostileServer"/>'s hosts a hostile peer attacks.</summary>
public enum HostilePath
{
    /// <summary>The endpoint (<c>MapWebSocket</c>) over HTTP/1.1, on the port shared with h2c.</summary>
    Endpoint,

    /// <summary>The endpoint over HTTP/2 (extended CONNECT, prior knowledge), same port.</summary>
    EndpointHttp2,

    /// <summary>The fast path (<c>ListenOptions.UseWebSockets</c>) on a port of its own.</summary>
    FastPath,

    /// <summary>The lean transport (<c>WebSocketCodec.Lean</c>, its epoll loops) on a port of its own.</summary>
    Lean,
}
