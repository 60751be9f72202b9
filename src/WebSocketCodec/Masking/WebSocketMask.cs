using System.Buffers.Binary;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace WebSocketCodec;

/// <summary>RFC 6455 §5.3 masking: for code that masks or unmasks payloads itself, say after
/// <see cref="FrameEncoder.WriteHeader"/> for a gathering write; the encoders and the decoder already mask.</summary>
/// <remarks>Payload byte <c>i</c> is XORed with key byte <c>(i + offset) % 4</c>. SIMD with <see cref="Vector512"/>,
/// <see cref="Vector256"/> and <see cref="Vector128"/> where the hardware has them, then 8-, 4- and 1-byte steps. The
/// offset lets a payload split over many reads be masked chunk by chunk: pass back what the previous call
/// returned.</remarks>
public static class WebSocketMask
{
    /// <summary>Masks (or unmasks) <paramref name="data"/> in place.</summary>
    /// <param name="data">The bytes to transform.</param>
    /// <param name="maskKey">The mask key bytes in wire order as a little-endian integer.</param>
    /// <param name="offset">How many payload bytes came before <paramref name="data"/>, modulo 4.</param>
    /// <returns>The offset for the next chunk: <c>(offset + data.Length) % 4</c>.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Apply(Span<byte> data, int maskKey, int offset = 0)
    {
        ref byte p = ref MemoryMarshal.GetReference(data);
        Transform(ref p, ref p, (nuint)data.Length, Rotate(maskKey, offset));
        return (offset + data.Length) & 3;
    }

    /// <summary>Writes the masked (or unmasked) <paramref name="source"/> to <paramref name="destination"/>, leaving
    /// <paramref name="source"/> untouched. The two may be the same memory, but must not overlap otherwise.</summary>
    /// <param name="source">The bytes to read.</param>
    /// <param name="destination">Where the result goes; at least as long as <paramref name="source"/>.</param>
    /// <param name="maskKey">The mask key bytes in wire order as a little-endian integer.</param>
    /// <param name="offset">How many payload bytes came before this chunk, modulo 4.</param>
    /// <returns>The offset for the next chunk.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Apply(ReadOnlySpan<byte> source, Span<byte> destination, int maskKey, int offset = 0)
    {
        if (destination.Length < source.Length)
        {
            ThrowHelper.ThrowDestinationTooSmall();
        }

        Transform(
            ref MemoryMarshal.GetReference(source), ref MemoryMarshal.GetReference(destination),
            (nuint)source.Length, Rotate(maskKey, offset));
        return (offset + source.Length) & 3;
    }

    /// <summary>The key as seen from payload position <paramref name="offset"/>: byte 0 of the result is key byte
    /// <c>offset % 4</c>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static uint Rotate(int maskKey, int offset) => BitOperations.RotateRight((uint)maskKey, (offset & 3) * 8);

    /// <param name="src">The first source byte.</param>
    /// <param name="dst">The first destination byte.</param>
    /// <param name="length">How many bytes.</param>
    /// <param name="key">The rotated key, little-endian: its low byte masks the first byte.</param>
    private static void Transform(ref byte src, ref byte dst, nuint length, uint key)
    {
        // Wide steps XOR a native-order load, so the key must be in memory order.
        uint wide = BitConverter.IsLittleEndian ? key : BinaryPrimitives.ReverseEndianness(key);
        nuint i = 0;
        if (length >= 16)
        {
            i = TransformVectors(ref src, ref dst, length, wide);
        }

        ulong key64 = wide | ((ulong)wide << 32);
        for (; i + 8 <= length; i += 8)
        {
            Unsafe.WriteUnaligned(
                ref Unsafe.Add(ref dst, i), Unsafe.ReadUnaligned<ulong>(ref Unsafe.Add(ref src, i)) ^ key64);
        }

        if (i + 4 <= length)
        {
            Unsafe.WriteUnaligned(
                ref Unsafe.Add(ref dst, i), Unsafe.ReadUnaligned<uint>(ref Unsafe.Add(ref src, i)) ^ wide);
            i += 4;
        }

        // i is a multiple of 4 here, so the tail starts at key byte 0.
        for (; i < length; i++)
        {
            Unsafe.Add(ref dst, i) = (byte)(Unsafe.Add(ref src, i) ^ (byte)key);
            key >>= 8;
        }
    }

    /// <summary>Masks whole vectors; returns how many bytes it did (a multiple of 16).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static nuint TransformVectors(ref byte src, ref byte dst, nuint length, uint key)
    {
        nuint i = 0;
        if (Vector512.IsHardwareAccelerated && length >= (nuint)Vector512<byte>.Count)
        {
            Vector512<byte> k = Vector512.Create(key).AsByte();
            for (; i + 256 <= length; i += 256)
            {
                Vector512<byte> a = Vector512.LoadUnsafe(ref src, i);
                Vector512<byte> b = Vector512.LoadUnsafe(ref src, i + 64);
                Vector512<byte> c = Vector512.LoadUnsafe(ref src, i + 128);
                Vector512<byte> d = Vector512.LoadUnsafe(ref src, i + 192);
                (a ^ k).StoreUnsafe(ref dst, i);
                (b ^ k).StoreUnsafe(ref dst, i + 64);
                (c ^ k).StoreUnsafe(ref dst, i + 128);
                (d ^ k).StoreUnsafe(ref dst, i + 192);
            }

            for (; i + 64 <= length; i += 64)
            {
                (Vector512.LoadUnsafe(ref src, i) ^ k).StoreUnsafe(ref dst, i);
            }
        }
        else if (Vector256.IsHardwareAccelerated && length >= (nuint)Vector256<byte>.Count)
        {
            Vector256<byte> k = Vector256.Create(key).AsByte();
            for (; i + 128 <= length; i += 128)
            {
                Vector256<byte> a = Vector256.LoadUnsafe(ref src, i);
                Vector256<byte> b = Vector256.LoadUnsafe(ref src, i + 32);
                Vector256<byte> c = Vector256.LoadUnsafe(ref src, i + 64);
                Vector256<byte> d = Vector256.LoadUnsafe(ref src, i + 96);
                (a ^ k).StoreUnsafe(ref dst, i);
                (b ^ k).StoreUnsafe(ref dst, i + 32);
                (c ^ k).StoreUnsafe(ref dst, i + 64);
                (d ^ k).StoreUnsafe(ref dst, i + 96);
            }

            for (; i + 32 <= length; i += 32)
            {
                (Vector256.LoadUnsafe(ref src, i) ^ k).StoreUnsafe(ref dst, i);
            }
        }

        if (Vector128.IsHardwareAccelerated)
        {
            Vector128<byte> k = Vector128.Create(key).AsByte();
            for (; i + 16 <= length; i += 16)
            {
                (Vector128.LoadUnsafe(ref src, i) ^ k).StoreUnsafe(ref dst, i);
            }
        }

        return i;
    }
}
