namespace WebSocketCodec.Broadcast.Server;

/// <summary>The <c>group</c> variant: <see cref="WebSocketGroup.Broadcast(WebSocketOpcode, ReadOnlySpan{byte})"/>, by
/// default with <see cref="SlowMemberPolicy.Skip"/> (a stalled member stays in and misses the broadcasts); the burst mode's
/// relay uses <see cref="SlowMemberPolicy.Close"/>.</summary>
internal sealed class GroupFanOut(SlowMemberPolicy policy = SlowMemberPolicy.Skip) : IFanOut
{
    private long _skipped;
    private long _closed;

    public WebSocketGroup Group { get; } = new(policy);

    public long Skipped => Volatile.Read(ref _skipped);

    /// <summary>Members the group's broadcasts closed (<see cref="SlowMemberPolicy.Close"/>), relayed ones included.</summary>
    public long Closed => Interlocked.Read(ref _closed);

    public int Count => Group.Count;

    public ValueTask BroadcastAsync(ReadOnlyMemory<byte> payload)
    {
        Tally(Group.Broadcast(WebSocketOpcode.Binary, payload.Span));
        return default;
    }

    /// <summary>Sends a message a member sent to every member (any thread: a member's read loop).</summary>
    public void Relay(WebSocketOpcode opcode, ReadOnlySpan<byte> payload) => Tally(Group.Broadcast(opcode, payload));

    private void Tally(BroadcastResult result)
    {
        if (result.Skipped > 0)
        {
            Interlocked.Add(ref _skipped, result.Skipped);
        }

        if (result.Closed > 0)
        {
            Interlocked.Add(ref _closed, result.Closed);
        }
    }
}
