namespace WebSocketCodec.Broadcast.Server;

/// <summary>The <c>group</c> variant: <see cref="WebSocketGroup.Broadcast(WebSocketOpcode, ReadOnlySpan{byte})"/>.</summary>
internal sealed class GroupFanOut : IFanOut
{
    public WebSocketGroup Group { get; } = new();

    public int Count => Group.Count;

    public ValueTask BroadcastAsync(ReadOnlyMemory<byte> payload)
    {
        Group.Broadcast(WebSocketOpcode.Binary, payload.Span);
        return default;
    }
}
