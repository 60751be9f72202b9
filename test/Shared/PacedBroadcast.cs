using System.Buffers.Binary;
using System.Net.WebSockets;

namespace WebSocketCodec.Testing;

/// <summary>
/// Broadcasts numbered messages to a group that holds readers (any <see cref="WebSocket"/> clients) and a member that
/// never reads, pacing itself by its slowest reader (it stays within 100 messages), in rounds until the group's
/// <see cref="SlowMemberPolicy.Close"/> has closed the silent member for falling further behind than its
/// <see cref="WebSocketSessionOptions.OutboundHardLimit"/>: the kernel may take more of a stuck peer's bytes later (its
/// send buffer grows), so it can look writable for a while, but a member that never reads cannot stay so.
/// Asserts that every reader got every message of every round, whole and in order.
/// </summary>
public static class PacedBroadcast
{
    /// <summary>Runs rounds of <paramref name="perRound"/> messages of <paramref name="length"/> bytes (at least 4: the
    /// number goes first), at most <paramref name="maxRounds"/>.</summary>
    /// <returns>The members the policy closed.</returns>
    public static async Task<int> UntilASlowMemberIsClosedAsync(
        WebSocketGroup group, IReadOnlyList<WebSocket> readers, int perRound, int length, int maxRounds = 10)
    {
        ArgumentNullException.ThrowIfNull(group);
        ArgumentNullException.ThrowIfNull(readers);
        byte[] payload = new byte[length];
        int closed = 0, sent = 0;
        for (int round = 0; round < maxRounds && closed == 0; round++)
        {
            int[] progress = new int[readers.Count];
            Task<List<byte[]>>[] reading = [.. readers.Select((reader, k) => ReceivedMessages.ReceiveAsync(reader, perRound, progress, k, length))];
            int first = sent;
            for (int i = 0; i < perRound; i++, sent++)
            {
                BinaryPrimitives.WriteInt32BigEndian(payload, sent);
                closed += group.Broadcast(WebSocketOpcode.Binary, payload).Closed;
                if (i % 50 == 49)
                {
                    int sentSoFar = i + 1; // the readers stay within 100 messages; the silent member is not waited for
                    await Eventually.True(() => progress.Min() >= sentSoFar - 100 || reading.Any(r => r.IsFaulted));
                }
            }

            foreach (List<byte[]> messages in await Task.WhenAll(reading).WaitAsync(TimeSpan.FromSeconds(60)))
            {
                Assert.All(messages, m => Assert.Equal(length, m.Length));
                Assert.Equal(Enumerable.Range(first, perRound), messages.Select(m => BinaryPrimitives.ReadInt32BigEndian(m)));
            }
        }

        return closed;
    }
}
