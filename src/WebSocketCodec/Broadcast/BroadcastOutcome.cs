namespace WebSocketCodec;

/// <summary>What became of a broadcast frame at one member.</summary>
internal enum BroadcastOutcome
{
    Sent,
    Skipped,
    Closed,
    Gone,
}
