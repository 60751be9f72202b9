using System.Buffers;
using WebSocketCodec.Testing;

namespace WebSocketCodec.Tests.Driver;

/// <summary>The side buffer that takes frames during a flush: what a take hands over is every byte appended before
/// it, in order; later appends go to the next take; every pooled chunk goes back.</summary>
public sealed class SideBufferTests
{
    [Fact]
    public void TakesHandOverEveryByteInOrderAndReturnTheChunks()
    {
        var pool = new CountingPool();
        var side = new SideBuffer(pool);
        var random = new Random(11);
        var expected = new List<byte>();
        var received = new List<byte>();
        for (int round = 0; round < 20; round++)
        {
            int writes = random.Next(0, 40);
            for (int i = 0; i < writes; i++)
            {
                byte[] bytes = new byte[i % 13 == 0 ? 9_000 : random.Next(1, 300)];
                random.NextBytes(bytes);
                side.Write(bytes);
                expected.AddRange(bytes);
            }

            Assert.Equal(expected.Count, side.Appended);
            (Queue<SideBuffer.Chunk> chunks, long length) = side.TakeSealed();
            long sum = 0;
            foreach (SideBuffer.Chunk chunk in chunks)
            {
                received.AddRange(chunk.Array.AsSpan(0, chunk.Length).ToArray());
                sum += chunk.Length;
            }

            Assert.Equal(length, sum);
            side.Recycle(chunks);
            Assert.Equal(expected.Count, received.Count);
        }

        Assert.Equal(expected, received);
        side.Release();
        Assert.Equal(0, pool.Outstanding);
        Assert.Equal(0, pool.BadReturns);
    }
}
