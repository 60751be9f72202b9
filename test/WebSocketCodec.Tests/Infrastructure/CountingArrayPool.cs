using System.Buffers;

namespace WebSocketCodec.Tests;

/// <summary>Counts rented and returned arrays, so tests prove nothing leaks.</summary>
public sealed class CountingArrayPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _inner = Create();
    private int _outstanding;
    private long _outstandingBytes;
    private long _peakBytes;

    public int Outstanding => Volatile.Read(ref _outstanding);

    /// <summary>The lengths of the arrays rented and not returned.</summary>
    public long OutstandingBytes => Volatile.Read(ref _outstandingBytes);

    /// <summary>The most <see cref="OutstandingBytes"/> ever was.</summary>
    public long PeakBytes => Volatile.Read(ref _peakBytes);

    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _outstanding);
        byte[] array = _inner.Rent(minimumLength);
        long now = Interlocked.Add(ref _outstandingBytes, array.Length);
        long peak;
        while (now > (peak = Volatile.Read(ref _peakBytes)) && Interlocked.CompareExchange(ref _peakBytes, now, peak) != peak)
        {
        }

        return array;
    }

    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Decrement(ref _outstanding);
        Interlocked.Add(ref _outstandingBytes, -array.Length);
        _inner.Return(array, clearArray);
    }
}
