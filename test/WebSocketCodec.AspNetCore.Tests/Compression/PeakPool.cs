using System.Buffers;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>A <see cref="CountingPool"/> that also remembers the most bytes its renters ever held at once: what an
/// attack cost the server in pooled memory at its peak.</summary>
public sealed class PeakPool : ArrayPool<byte>
{
    private long _peakHeldBytes;

    /// <summary>The pool that counts rents and returns.</summary>
    public CountingPool Counting { get; } = new();

    /// <summary>The most bytes held at once since the start (the arrays' lengths, summed).</summary>
    public long PeakHeldBytes => Interlocked.Read(ref _peakHeldBytes);

    /// <inheritdoc />
    public override byte[] Rent(int minimumLength)
    {
        byte[] array = Counting.Rent(minimumLength);
        long held = Counting.HeldBytes;
        long peak;
        while (held > (peak = Interlocked.Read(ref _peakHeldBytes)) && Interlocked.CompareExchange(ref _peakHeldBytes, held, peak) != peak)
        {
        }

        return array;
    }

    /// <inheritdoc />
    public override void Return(byte[] array, bool clearArray = false) => Counting.Return(array, clearArray);
}
