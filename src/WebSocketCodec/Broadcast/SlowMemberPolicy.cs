namespace WebSocketCodec;

/// <summary>What a broadcast does for a member whose outbound bytes are above its high water mark (the peer reads
/// slower than the group sends, for now or for good): choose it when you create a <see cref="WebSocketGroup"/>,
/// <see cref="Skip"/> for feeds where the next message supersedes the last, <see cref="Close"/> for conversations where
/// a gap would mislead. Either way the others are not held up.</summary>
public enum SlowMemberPolicy
{
    /// <summary>The member misses this message (counted as skipped) and stays in the group (so does one whose message
    /// would pass the group's <see cref="BroadcastBudget"/>); its slow-consumer timeout
    /// (<see cref="WebSocketSessionOptions.SlowConsumerTimeout"/>) closes it if it stays above the mark. For feeds
    /// where the next message supersedes the last (prices, positions).</summary>
    Skip,

    /// <summary>The member gets every message, in order: above its high water mark the group's messages queue for it
    /// (shared, not copied) and go into its output as its peer takes bytes. It is closed with 1008 (Policy Violation,
    /// "slow consumer") and leaves the group only when its peer took none of its bytes for
    /// <see cref="WebSocketSessionOptions.SlowConsumerTimeout"/>, or when the queued messages of all members would pass
    /// the group's <see cref="BroadcastBudget"/> (then the members furthest behind go first), or it fell further behind
    /// than <see cref="WebSocketSessionOptions.OutboundHardLimit"/> where an application set one. So every member left
    /// has had every message, and a burst that a healthy reader drains closes nobody. For conversations (chat) where a
    /// gap would mislead.</summary>
    Close,
}
