using System.Buffers;

namespace WebSocketCodec.Fuzz;

/// <summary>An array pool that counts rents and returns and refuses a foreign or doubly returned array, so the
/// balance oracle can tell a leak (rented, never returned) from a double return. Like the shared pool it hands out
/// arrays rounded up to a power of two (longer than asked), and it scribbles over every returned array, so a reader
/// that keeps using a returned buffer sees garbage and the agreement oracles catch it.</summary>
public sealed class BalanceCheckingPool : ArrayPool<byte>
{
    private readonly HashSet<byte[]> _out = new(ReferenceEqualityComparer.Instance);

    /// <summary>Arrays rented so far.</summary>
    public long Rented { get; private set; }

    /// <summary>Arrays returned so far.</summary>
    public long Returned { get; private set; }

    /// <summary>Returns of arrays that were not out (never rented here, or returned twice).</summary>
    public long BadReturns { get; private set; }

    /// <summary>Arrays out now.</summary>
    public int Outstanding => _out.Count;

    /// <inheritdoc />
    public override byte[] Rent(int minimumLength)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(minimumLength);
        var array = new byte[minimumLength <= 16 ? minimumLength : (int)Math.Min(Array.MaxLength, System.Numerics.BitOperations.RoundUpToPowerOf2((uint)minimumLength))];
        _out.Add(array);
        Rented++;
        return array;
    }

    /// <inheritdoc />
    public override void Return(byte[] array, bool clearArray = false)
    {
        ArgumentNullException.ThrowIfNull(array);
        if (!_out.Remove(array))
        {
            BadReturns++;
            return;
        }

        Returned++;
        array.AsSpan().Fill(0xDD);
    }

    /// <summary>The pool-balance oracle: every array rented was returned once.</summary>
    public void AssertBalanced(string when)
    {
        if (Outstanding != 0 || BadReturns != 0 || Rented != Returned)
        {
            throw new OracleFailureException(
                $"pool unbalanced {when}: rented {Rented}, returned {Returned}, outstanding {Outstanding}, bad returns {BadReturns}");
        }
    }
}
