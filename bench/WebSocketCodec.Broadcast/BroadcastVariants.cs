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

    /// <summary>Every variant, in the order runs interleave them.</summary>
    public static IReadOnlyList<string> All { get; } = [Group, SenderLoop, AspNetLoop];
}
