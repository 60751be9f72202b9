namespace WebSocketCodec;

/// <summary>
/// A server websocket that can join a <see cref="WebSocketGroup"/>: the Pipelines and Kestrel
/// <c>WebSocketConnection</c> (HTTP/1.1 and HTTP/2 alike) and the SpanNetty <c>ChannelFrameSender</c>. The hosts
/// implement it; it has nothing to call.
/// </summary>
public interface IWebSocketGroupMember
{
    /// <summary>The member's side of broadcasts: its queue of frames waiting for its output.</summary>
    internal BroadcastInbox BroadcastInbox { get; }
}
