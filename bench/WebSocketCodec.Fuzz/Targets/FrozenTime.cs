namespace WebSocketCodec.Fuzz;

/// <summary>A clock that never moves: the session's timers stay quiet, so a run depends on its bytes only.</summary>
public sealed class FrozenTime : TimeProvider
{
    /// <summary>The one instance.</summary>
    public static FrozenTime Instance { get; } = new();

    /// <inheritdoc />
    public override long GetTimestamp() => 1_000_000;
}
