using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace WebSocketCodec.Testing;

/// <summary>
/// Waits for a condition that no event announces (a pool's count after a background disposal, bytes a server has
/// read, an embedded channel's state once its wall-clock timers ran): checks it every few milliseconds until it holds,
/// and fails with the condition's text when the deadline passes first. Where the code offers a signal (a task, a
/// <see cref="TaskCompletionSource"/>, a <c>FakeTimeProvider</c>) a test awaits that instead.
/// </summary>
public static class Eventually
{
    /// <summary>How long a condition is given by default: long enough for a loaded 2-core machine.</summary>
    public static readonly TimeSpan DefaultTimeout = TimeSpan.FromSeconds(20);

    private static readonly TimeSpan Step = TimeSpan.FromMilliseconds(5);

    /// <summary>Completes once <paramref name="condition"/> returns true; throws <see cref="TimeoutException"/> when
    /// it is still false after <paramref name="timeout"/> (<see cref="DefaultTimeout"/> when null).</summary>
    public static async Task True(
        Func<bool> condition, TimeSpan? timeout = null, [CallerArgumentExpression(nameof(condition))] string? expression = null)
    {
        ArgumentNullException.ThrowIfNull(condition);
        TimeSpan limit = timeout ?? DefaultTimeout;
        long start = Stopwatch.GetTimestamp();
        while (!condition())
        {
            if (Stopwatch.GetElapsedTime(start) > limit)
            {
                throw new TimeoutException($"Still false after {limit.TotalSeconds:0.###} s: {expression}");
            }

            await Task.Delay(Step); // the polling step, not a guess at how long the event takes
        }
    }
}
