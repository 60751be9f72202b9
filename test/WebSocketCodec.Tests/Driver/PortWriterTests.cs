using System.Buffers;

namespace WebSocketCodec.Tests.Driver;

/// <summary>The driver's write coalescing into the port: nothing reaches the transport before <c>Commit</c>, then
/// every byte does, in order, across chunk boundaries and for writes larger than a chunk, with one commit per chunk.</summary>
public sealed class PortWriterTests
{
    [Fact]
    public void WritesReachTheTransportOnCommitInOrder()
    {
        var transport = new BufferTransport(4096);
        var writer = new PortWriter(transport);
        var expected = new List<byte>();
        var random = new Random(7);
        for (int i = 0; i < 500; i++)
        {
            // Mostly small writes, now and then one larger than a whole chunk.
            int length = i % 97 == 0 ? 10_000 : random.Next(1, 200);
            byte[] chunk = new byte[length];
            random.NextBytes(chunk);
            writer.Write(chunk);
            expected.AddRange(chunk);
        }

        // The chunk in hand is not committed yet: the transport saw one commit per chunk, not per write.
        Assert.True(transport.Committed.Length < expected.Count);
        Assert.True(transport.Commits < 500 / 10, $"{transport.Commits} commits for 500 writes");
        writer.Commit();
        Assert.Equal(expected.Count, writer.Committed);
        Assert.Equal(expected.ToArray(), transport.Committed.ToArray());
    }

    [Fact]
    public void AdvancingPastTheSpanIsRefused()
    {
        var transport = new BufferTransport();
        var writer = new PortWriter(transport);
        int length = writer.GetSpan(16).Length;
        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Advance(length + 1));
        writer.Advance(length);
        writer.Commit();
        Assert.Equal(length, transport.Committed.Length);
    }
}
