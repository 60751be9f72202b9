namespace WebSocketCodec.Broadcast;

/// <summary>The three ways the server sends one message to every websocket.</summary>
public static class BroadcastVariants
{
    /// <summary>Our endpoint, every websocket in one <see cref="WebSocketGroup"/>: encoded once, the same bytes to each.</summary>
    public const string Group = "group";

    /// <summary>Our endpoint, the same websockets, a loop awaiting each one's own <c>Sender.SendAsync</c>.</summary>
    public const string SenderLoop = "sender-loop";

    /// <summary>ASP.NET Core's websockets (<c>UseWebSockets</c>, <c>AcceptWebSocketAsync</c>), a loop awaiting each one's
    /// <c>WebSocket.SendAsync</c>.</summary>
    public const string AspNetLoop = "aspnet-loop";

    /// <summary>Not in the default set: the group on our Kestrel fast path (<c>ListenOptions.UseWebSockets</c>, the
    /// connection's own pipes, no HTTP pipeline or upgrade stream), to see what the endpoint's stream costs.</summary>
    public const string GroupFastPath = "group-fastpath";

    /// <summary>Not in the default set: the group on the lean transport (<c>WebSocketCodec.Lean</c>: epoll loops, no
    /// Kestrel), broadcast and burst modes (no stalled members).</summary>
    public const string GroupLean = "group-lean";

    /// <summary>The three variants, in the order runs interleave them.</summary>
    public static IReadOnlyList<string> All { get; } = [Group, SenderLoop, AspNetLoop];

    /// <summary>Every variant the server knows.</summary>
    public static IReadOnlyList<string> Known { get; } = [Group, SenderLoop, AspNetLoop, GroupFastPath, GroupLean];
}
