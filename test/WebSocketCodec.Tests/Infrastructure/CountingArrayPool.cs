using System.Buffers;

namespace WebSocketCodec.Tests;

/// <summary>Counts rented and returned arrays, so tests prove nothing leaks.</summary>
public sealed class CountingArrayPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _inner = Create();
    private int _outstanding;

    public int Outstanding => Volatile.Read(ref _outstanding);

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _outstanding);
        return _inner.Rent(minimumLength);
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Decrement(ref _outstanding);
        _inner.Return(array, clearArray);
    }
}
