using System.Buffers;

namespace WebSocketCodec.Testing;

/// <summary>An array pool that counts what is rented and returned, so tests can prove nothing leaks.</summary>
public sealed class CountingPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _inner = Create();
    private int _outstanding;
    private int _rented;
    private readonly Dictionary<byte[], int> _asked = new(ReferenceEqualityComparer.Instance);
    private long _outstandingBytes;

    public int Outstanding => Volatile.Read(ref _outstanding);

    public int Rented => Volatile.Read(ref _rented);

    /// <summary>The lengths asked for of the arrays rented and not returned, summed (what the pool hands out may be
    /// longer: a pool's bucket that ran out of arrays serves from the next, twice as long).</summary>
    public long OutstandingBytes => Interlocked.Read(ref _outstandingBytes);

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _outstanding);
        Interlocked.Increment(ref _rented);
        byte[] array = _inner.Rent(minimumLength);
        lock (_asked)
        {
            _asked[array] = minimumLength;
        }

        Interlocked.Add(ref _outstandingBytes, minimumLength);
        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Decrement(ref _outstanding);
        lock (_asked)
        {
            if (_asked.Remove(array, out int asked))
            {
                Interlocked.Add(ref _outstandingBytes, -asked);
            }
        }

        _inner.Return(array, clearArray);
    }
}
