namespace WebSocketCodec.Pipelines;

/// <summary>When a <see cref="ReconnectingWebSocket"/> tries again: set it as
/// <see cref="ReconnectingWebSocketOptions.Backoff"/> to change the delays between attempts and how long an outage may
/// last before the client gives up.</summary>
/// <remarks>Exponential back-off from <see cref="InitialDelay"/> by <see cref="Multiplier"/> up to
/// <see cref="MaxDelay"/>, each delay shortened by a random share of up to <see cref="Jitter"/> (so clients cut off
/// together do not return together), a server's <c>Retry-After</c> taken when longer. An outage ends the client when it
/// passes <see cref="MaxAttempts"/> or <see cref="MaxElapsed"/>; a connection that stayed up for
/// <see cref="StableAfter"/> starts the count again (a flapping one does not).</remarks>
public sealed record ReconnectBackoff
{
    /// <summary>The defaults: 250 ms doubling to 30 s, half of each delay random, no limit, stable after 10 s.</summary>
    public static ReconnectBackoff Default { get; } = new();

    /// <summary>The delay before the first attempt after a loss (250 ms).</summary>
    public TimeSpan InitialDelay { get; init; } = TimeSpan.FromMilliseconds(250);

    /// <summary>The cap on any delay (30 s).</summary>
    public TimeSpan MaxDelay { get; init; } = TimeSpan.FromSeconds(30);

    /// <summary>The growth of the delay per failed attempt (2).</summary>
    public double Multiplier { get; init; } = 2;

    /// <summary>The share of each delay taken off at random, 0 to 1 (0.5: a delay d waits between d/2 and d).</summary>
    public double Jitter { get; init; } = 0.5;

    /// <summary>Attempts per outage before the client gives up; null (the default) for no limit.</summary>
    public int? MaxAttempts { get; init; }

    /// <summary>How long an outage may last before the client gives up; null (the default) for no limit.</summary>
    public TimeSpan? MaxElapsed { get; init; }

    /// <summary>How long a connection must stay up for the next loss to start from <see cref="InitialDelay"/> again
    /// (10 s).</summary>
    public TimeSpan StableAfter { get; init; } = TimeSpan.FromSeconds(10);

    /// <summary>The delay before attempt <paramref name="attempt"/> (1 for the first) with the random draw
    /// <paramref name="random"/> in [0, 1).</summary>
    public TimeSpan DelayFor(int attempt, double random)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(attempt);
        double grown = InitialDelay.TotalMilliseconds * Math.Pow(Multiplier, Math.Min(attempt - 1, 64));
        double capped = double.IsFinite(grown) ? Math.Min(grown, MaxDelay.TotalMilliseconds) : MaxDelay.TotalMilliseconds;
        return TimeSpan.FromMilliseconds(capped * (1 - (Jitter * Math.Clamp(random, 0, 1))));
    }

    /// <summary>Checks the values: delays not negative, the cap not below the first delay, a multiplier of at least 1,
    /// jitter within 0 to 1, limits positive.</summary>
    /// <exception cref="ArgumentOutOfRangeException">A value is out of its range.</exception>
    public void Validate()
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(InitialDelay, TimeSpan.Zero, nameof(InitialDelay));
        ArgumentOutOfRangeException.ThrowIfLessThan(MaxDelay, InitialDelay, nameof(MaxDelay));
        if (!(Multiplier >= 1) || !double.IsFinite(Multiplier))
        {
            throw new ArgumentOutOfRangeException(nameof(Multiplier), Multiplier, "The multiplier must be a finite number of at least 1.");
        }

        if (!(Jitter is >= 0 and <= 1))
        {
            throw new ArgumentOutOfRangeException(nameof(Jitter), Jitter, "Jitter is a share of the delay, from 0 to 1.");
        }

        if (MaxAttempts is int attempts)
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(attempts, nameof(MaxAttempts));
        }

        if (MaxElapsed is TimeSpan elapsed)
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(elapsed, TimeSpan.Zero, nameof(MaxElapsed));
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(StableAfter, TimeSpan.Zero, nameof(StableAfter));
    }
}
