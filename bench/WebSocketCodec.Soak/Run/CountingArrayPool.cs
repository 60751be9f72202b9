using System.Buffers;

namespace WebSocketCodec.Soak;

/// <summary>An array pool that counts rents and returns, so the soak can prove every pooled buffer came back once
/// every websocket closed. Cheap enough for millions of rents (two interlocked counters).</summary>
public sealed class CountingArrayPool : ArrayPool<byte>
{
    private long _rented;
    private long _returned;

    /// <summary>Arrays rented so far.</summary>
    public long Rented => Interlocked.Read(ref _rented);

    /// <summary>Arrays returned so far.</summary>
    public long Returned => Interlocked.Read(ref _returned);

    /// <summary>Arrays rented and not returned.</summary>
    public long Outstanding => Rented - Returned;

    /// <inheritdoc/>
    public override byte[] Rent(int minimumLength)
    {
        Interlocked.Increment(ref _rented);
        return Shared.Rent(minimumLength);
    }

    /// <inheritdoc/>
    public override void Return(byte[] array, bool clearArray = false)
    {
        Interlocked.Increment(ref _returned);
        Shared.Return(array, clearArray);
    }
}
