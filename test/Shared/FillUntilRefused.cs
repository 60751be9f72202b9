using System.Diagnostics;

namespace WebSocketCodec.Testing;

/// <summary>
/// Fills the buffers towards a peer that reads nothing (the kernel's, then the transport's) with a sender's
/// <c>TrySend</c>, until it keeps refusing: 40 refusals in a row, a few milliseconds apart (a refused send is taken a
/// moment later while the transport still drains into the kernel). Bounded in bytes and in time, so a backpressure that
/// never refuses fails the test instead of filling memory for ever.
/// </summary>
public static class FillUntilRefused
{
    private const int RefusalsInARow = 40;

    /// <summary>Calls <paramref name="trySend"/> (one frame of <paramref name="frameLength"/> payload bytes) until it
    /// keeps refusing.</summary>
    /// <param name="trySend">Sends one frame if the sender takes it.</param>
    /// <param name="frameLength">The payload bytes of one frame.</param>
    /// <param name="maxBytes">The most a working backpressure can take before it refuses (the kernel's buffers on
    /// loopback and the transport's marks, with room to spare).</param>
    /// <param name="timeout">How long the filling may take; 30 s when null.</param>
    /// <returns>The payload bytes taken.</returns>
    public static async Task<long> RunAsync(Func<bool> trySend, int frameLength, long maxBytes, TimeSpan? timeout = null)
    {
        ArgumentNullException.ThrowIfNull(trySend);
        TimeSpan limit = timeout ?? TimeSpan.FromSeconds(30);
        long start = Stopwatch.GetTimestamp();
        long taken = 0;
        for (int refused = 0; refused < RefusalsInARow; await Task.Delay(5)) // pacing: the transport takes what it can
        {
            if (trySend())
            {
                taken += frameLength;
                refused = 0;
                Assert.True(taken <= maxBytes, $"TrySend took {taken} bytes for a peer that reads nothing: the backpressure never refused");
            }
            else
            {
                refused++;
            }

            if (Stopwatch.GetElapsedTime(start) > limit)
            {
                throw new TimeoutException($"TrySend did not keep refusing within {limit.TotalSeconds:0} s ({taken} bytes taken)");
            }
        }

        return taken;
    }
}
