using System.Buffers;

namespace WebSocketCodec.Testing;

/// <summary>
/// An array pool that knows every array it has out, so tests can prove nothing leaks: it counts rents and returns, the
/// bytes out (asked for, and held), and returns it should never see (an array returned twice, or never rented here),
/// which it keeps out of the pool beneath. Safe to use from any number of threads.
/// </summary>
public sealed class CountingPool : ArrayPool<byte>
{
    private readonly ArrayPool<byte> _inner = Create();
    private readonly Dictionary<byte[], int> _out = new(ReferenceEqualityComparer.Instance);
    private long _rented;
    private long _returned;
    private long _badReturns;
    private long _outstandingBytes;
    private long _heldBytes;

    /// <summary>Arrays rented so far.</summary>
    public long Rented => Interlocked.Read(ref _rented);

    /// <summary>Arrays rented here and returned (once) so far.</summary>
    public long Returned => Interlocked.Read(ref _returned);

    /// <summary>Returns of an array that was not out: returned twice, or never rented here.</summary>
    public long BadReturns => Interlocked.Read(ref _badReturns);

    /// <summary>Arrays rented and not returned.</summary>
    public int Outstanding
    {
        get
        {
            lock (_out)
            {
                return _out.Count;
            }
        }
    }

    /// <summary>The lengths asked for of the arrays rented and not returned, summed (what the pool hands out may be
    /// longer: a pool's bucket that ran out of arrays serves from the next, twice as long).</summary>
    public long OutstandingBytes => Interlocked.Read(ref _outstandingBytes);

    /// <summary>The lengths of the arrays rented and not returned, summed: the memory the renters hold.</summary>
    public long HeldBytes => Interlocked.Read(ref _heldBytes);

    /// <inheritdoc />
    public override byte[] Rent(int minimumLength)
    {
        byte[] array = _inner.Rent(minimumLength);
        lock (_out)
        {
            _out.Add(array, minimumLength);
        }

        Interlocked.Increment(ref _rented);
        Interlocked.Add(ref _outstandingBytes, minimumLength);
        Interlocked.Add(ref _heldBytes, array.Length);
        return array;
    }

    /// <inheritdoc />
    public override void Return(byte[] array, bool clearArray = false)
    {
        ArgumentNullException.ThrowIfNull(array);
        int asked;
        bool wasOut;
        lock (_out)
        {
            wasOut = _out.Remove(array, out asked);
        }

        if (!wasOut)
        {
            Interlocked.Increment(ref _badReturns);
            return;
        }

        Interlocked.Increment(ref _returned);
        Interlocked.Add(ref _outstandingBytes, -asked);
        Interlocked.Add(ref _heldBytes, -array.Length);
        _inner.Return(array, clearArray);
    }

    /// <summary>Asserts every array rented came back exactly once, and nothing else came back.</summary>
    public void AssertBalanced()
    {
        long rented = Rented;
        long returned = Returned;
        long bad = BadReturns;
        int outstanding = Outstanding;
        if (outstanding != 0 || bad != 0 || rented != returned)
        {
            throw new InvalidOperationException(
                $"The pool is not balanced: rented {rented}, returned {returned}, outstanding {outstanding}, bad returns {bad}.");
        }
    }
}
