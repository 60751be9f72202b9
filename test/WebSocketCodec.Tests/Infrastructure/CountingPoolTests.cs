namespace WebSocketCodec.Tests.Infrastructure;

/// <summary>The shared counting pool tells a leak, a double return and a foreign array apart, so the pool checks after
/// the tests can fail.</summary>
public class CountingPoolTests
{
    [Fact]
    public void RentsAndReturnsBalance()
    {
        var pool = new CountingPool();
        byte[] array = pool.Rent(100);
        Assert.Equal(1, pool.Outstanding);
        Assert.Equal(100, pool.OutstandingBytes);
        Assert.Equal(array.Length, pool.HeldBytes);
        pool.Return(array);
        Assert.Equal((0, 0L, 0L), (pool.Outstanding, pool.OutstandingBytes, pool.HeldBytes));
        pool.AssertBalanced();
    }

    [Fact]
    public void ALeakIsUnbalanced()
    {
        var pool = new CountingPool();
        pool.Rent(10);
        Assert.Throws<InvalidOperationException>(pool.AssertBalanced);
    }

    [Fact]
    public void ADoubleReturnIsCountedAndKeptFromThePool()
    {
        var pool = new CountingPool();
        byte[] array = pool.Rent(10);
        pool.Return(array);
        pool.Return(array);
        Assert.Equal(1, pool.BadReturns);
        Assert.Equal(0, pool.Outstanding);
        Assert.Throws<InvalidOperationException>(pool.AssertBalanced);
    }

    [Fact]
    public void AForeignArrayIsCounted()
    {
        var pool = new CountingPool();
        pool.Return(new byte[16]);
        Assert.Equal(1, pool.BadReturns);
        Assert.Throws<InvalidOperationException>(pool.AssertBalanced);
    }

    [Fact]
    public async Task ManyThreadsBalance()
    {
        var pool = new CountingPool();
        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => Task.Run(() =>
        {
            for (int i = 0; i < 10_000; i++)
            {
                pool.Return(pool.Rent(1 + (i % 5000)));
            }
        })));
        Assert.Equal(40_000, pool.Rented);
        pool.AssertBalanced();
    }
}
