using System.Buffers;

namespace WebSocketCodec.Testing;

/// <summary>An array pool that counts what is rented and returned, so tests can prove nothing leaks.</summary>
public sealed class CountingPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _inner = Create();
    private int _outstanding;
    private int _rented;

    public int Outstanding => Volatile.Read(ref _outstanding);

    public int Rented => Volatile.Read(ref _rented);

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _outstanding);
        Interlocked.Increment(ref _rented);
        return _inner.Rent(minimumLength);
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Decrement(ref _outstanding);
        _inner.Return(array, clearArray);
    }
}
