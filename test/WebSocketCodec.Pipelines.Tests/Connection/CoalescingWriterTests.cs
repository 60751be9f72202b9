using System.Buffers;
using System.IO.Pipelines;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Pipelines.Tests.Connection;

/// <summary>The read loop's write coalescing: nothing reaches the pipe before <c>Commit</c>, then every byte does, in
/// order, across chunk boundaries and for writes larger than a chunk.</summary>
public sealed class CoalescingWriterTests
{
    [Fact]
    public async Task WritesReachThePipeOnCommitInOrder()
    {
        var pipe = new Pipe(new PipeOptions(minimumSegmentSize: 4096, pauseWriterThreshold: 0));
        var writer = new CoalescingWriter(pipe.Writer);
        var expected = new List<byte>();
        var random = new Random(7);
        for (int i = 0; i < 500; i++)
        {
            // Mostly small writes, now and then one larger than a whole segment.
            int length = i % 97 == 0 ? 10_000 : random.Next(1, 200);
            byte[] chunk = new byte[length];
            random.NextBytes(chunk);
            writer.Write(chunk);
            expected.AddRange(chunk);
        }

        // The chunk in hand is not in the pipe yet: the pipe saw one Advance per chunk, not per write.
        Assert.True(pipe.Writer.UnflushedBytes < expected.Count);
        writer.Commit();
        Assert.Equal(expected.Count, pipe.Writer.UnflushedBytes);
        await pipe.Writer.FlushAsync();
        await pipe.Writer.CompleteAsync();

        ReadResult result;
        while (!(result = await pipe.Reader.ReadAsync()).IsCompleted)
        {
            pipe.Reader.AdvanceTo(result.Buffer.Start, result.Buffer.End);
        }

        Assert.Equal(expected.ToArray(), result.Buffer.ToArray());
    }

    [Fact]
    public void AdvancingPastTheSpanIsRefused()
    {
        var pipe = new Pipe();
        var writer = new CoalescingWriter(pipe.Writer);
        int length = writer.GetSpan(16).Length;
        Assert.Throws<ArgumentOutOfRangeException>(() => writer.Advance(length + 1));
        writer.Advance(length);
        writer.Commit();
        Assert.Equal(length, pipe.Writer.UnflushedBytes);
    }
}
