namespace WebSocketCodec;

/// <summary>
/// A server websocket that can join a <see cref="WebSocketGroup"/>: a <see cref="WebSocketDriver"/> (on the Pipelines
/// and Kestrel hosts, <c>WebSocketConnection.Driver</c>, HTTP/1.1 and HTTP/2 alike) and, until it runs on the driver, the
/// SpanNetty <c>ChannelFrameSender</c>. The core implements it; it has nothing to call.
/// </summary>
public interface IWebSocketGroupMember
{
    /// <summary>The member's side of broadcasts: its queue of frames waiting for its output.</summary>
    internal BroadcastInbox BroadcastInbox { get; }
}
