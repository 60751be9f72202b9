using System.Buffers;

namespace WebSocketCodec.Tests.Infrastructure;

/// <summary>Builds multi-segment <see cref="ReadOnlySequence{T}"/>s for tests.</summary>
internal static class Segments
{
    /// <summary>A sequence whose segments are the given arrays, in order.</summary>
    public static ReadOnlySequence<byte> Create(params byte[][] parts)
    {
        if (parts.Length == 0)
        {
            return ReadOnlySequence<byte>.Empty;
        }

        var first = new Segment(parts[0], 0);
        Segment last = first;
        for (int i = 1; i < parts.Length; i++)
        {
            last = last.Append(parts[i]);
        }

        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    /// <summary>Splits <paramref name="data"/> at the given offsets into a multi-segment sequence.</summary>
    public static ReadOnlySequence<byte> Split(byte[] data, params int[] offsets)
    {
        var parts = new List<byte[]>();
        int start = 0;
        foreach (int offset in offsets.Order())
        {
            parts.Add(data[start..offset]);
            start = offset;
        }

        parts.Add(data[start..]);
        return Create([.. parts]);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }
}
