using WebSocketCodec.Lean.Loop;

namespace WebSocketCodec.Lean.Tests.Transport;

/// <summary>The loops' chunk pool: chunks come back for reuse, at most <see cref="ChunkPool.MaxRetained"/> are kept,
/// and a trim lets go of those no rent needed since the last one.</summary>
public sealed class ChunkPoolTests
{
    [Fact]
    public void AReturnedChunkIsReusedAndTheOutstandingCountFollows()
    {
        var pool = new ChunkPool();
        byte[] first = pool.Rent();
        Assert.Equal(ChunkPool.ChunkSize, first.Length);
        Assert.Equal(1, pool.Outstanding);
        pool.Return(first);
        Assert.Equal(0, pool.Outstanding);
        Assert.Same(first, pool.Rent());
    }

    [Fact]
    public void NoMoreThanTheCapIsKept()
    {
        var pool = new ChunkPool();
        byte[][] chunks = [.. Enumerable.Range(0, ChunkPool.MaxRetained + 10).Select(_ => pool.Rent())];
        foreach (byte[] chunk in chunks)
        {
            pool.Return(chunk);
        }

        Assert.Equal(ChunkPool.MaxRetained, pool.Retained);
        Assert.Equal(0, pool.Outstanding);
    }

    [Fact]
    public void ATrimLetsGoOfTheChunksNoRentNeededSinceTheLastTrim()
    {
        var pool = new ChunkPool();
        byte[][] burst = [.. Enumerable.Range(0, 8).Select(_ => pool.Rent())];
        foreach (byte[] chunk in burst)
        {
            pool.Return(chunk);
        }

        pool.Trim(); // starts the interval: 8 free
        byte[] one = pool.Rent(); // at least 7 stayed free the whole interval
        pool.Return(one);
        Assert.Equal(7, pool.Trim());
        Assert.Equal(1, pool.Retained);
        Assert.Equal(1, pool.Trim()); // the one left was not rented since: let go too
        Assert.Equal(0, pool.Retained);
    }
}
