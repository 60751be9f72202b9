namespace WebSocketCodec;

/// <summary>A server websocket as <see cref="WebSocketGroup.Add"/> takes it: pass the <see cref="WebSocketDriver"/> of
/// the websocket, whatever its host (<c>WebSocketConnection.Driver</c> on Pipelines and Kestrel, HTTP/1.1 and HTTP/2
/// alike; <c>sender.Driver</c> on SpanNetty). The core implements it; it has nothing to call.</summary>
public interface IWebSocketGroupMember
{
    /// <summary>The member's side of broadcasts: its queue of frames waiting for its output.</summary>
    internal BroadcastInbox BroadcastInbox { get; }
}
