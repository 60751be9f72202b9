namespace WebSocketCodec.Broadcast.Server;

/// <summary>What the relay listeners of one server counted (fields, for <see cref="Interlocked"/>).</summary>
internal sealed class RelayCounts
{
    public long Relayed;
    public long Fragments;
    public int SlowEnded;
}
