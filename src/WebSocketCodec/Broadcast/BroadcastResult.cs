namespace WebSocketCodec;

/// <summary>What one broadcast did, in counts of members: read it to log or measure how a group keeps up (how many took
/// the message, were skipped or closed as slow, or had left).</summary>
/// <param name="Sent">Members whose output took the frame (appended now, or queued to be appended on the member's own
/// thread, in order).</param>
/// <param name="Skipped">Members above their high water mark that missed it (<see cref="SlowMemberPolicy.Skip"/>).</param>
/// <param name="Closed">Members closed as slow by <see cref="SlowMemberPolicy.Close"/> (now, or since their last broadcast
/// by the group's <see cref="BroadcastBudget"/>, as furthest behind), dropped from the group.</param>
/// <param name="Removed">Members that could no longer send (closing or closed), dropped from the group.</param>
public readonly record struct BroadcastResult(int Sent, int Skipped, int Closed, int Removed);
