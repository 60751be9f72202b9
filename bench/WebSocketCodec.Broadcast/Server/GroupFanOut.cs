namespace WebSocketCodec.Broadcast.Server;

/// <summary>The <c>group</c> variant: <see cref="WebSocketGroup.Broadcast(WebSocketOpcode, ReadOnlySpan{byte})"/>, with
/// the default <see cref="SlowMemberPolicy.Skip"/> (a stalled member stays in and misses the broadcasts).</summary>
internal sealed class GroupFanOut : IFanOut
{
    private long _skipped;

    public WebSocketGroup Group { get; } = new(SlowMemberPolicy.Skip);

    public long Skipped => Volatile.Read(ref _skipped);

    public int Count => Group.Count;

    public ValueTask BroadcastAsync(ReadOnlyMemory<byte> payload)
    {
        BroadcastResult result = Group.Broadcast(WebSocketOpcode.Binary, payload.Span);
        Volatile.Write(ref _skipped, _skipped + result.Skipped); // broadcasts are serialized on the command thread
        return default;
    }
}
