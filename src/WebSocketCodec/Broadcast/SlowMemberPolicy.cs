namespace WebSocketCodec;

/// <summary>What a broadcast does for a member whose outbound bytes are above its high water mark (the peer reads
/// slower than the group sends). Either way the others are not held up.</summary>
public enum SlowMemberPolicy
{
    /// <summary>The member misses this message (counted as skipped) and stays in the group; its slow-consumer timeout
    /// (<see cref="WebSocketSessionOptions.SlowConsumerTimeout"/>) closes it if it stays above the mark. For feeds
    /// where the next message supersedes the last (prices, positions).</summary>
    Skip,

    /// <summary>The member is closed at once with 1008 (Policy Violation, "slow consumer") and leaves the group, so
    /// every member left has had every message, in order. For conversations (chat) where a gap would mislead.</summary>
    Close,
}
