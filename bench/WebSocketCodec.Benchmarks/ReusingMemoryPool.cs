using System.Buffers;
using System.Collections.Concurrent;

namespace WebSocketCodec.Benchmarks;

/// <summary>
/// Pipe memory for the echo benchmark that is reused, owner objects included, as Kestrel's block pool does
/// (<see cref="MemoryPool{T}.Shared"/> allocates an owner per segment, which would be counted against both codecs).
/// </summary>
internal sealed class ReusingMemoryPool : MemoryPool<byte>
{
    private const int SegmentSize = 4096;
    private readonly ConcurrentBag<Segment> _segments = [];

    public override int MaxBufferSize => SegmentSize;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, SegmentSize);
        return _segments.TryTake(out Segment? segment) ? segment : new Segment(_segments);
    }

    protected override void Dispose(bool disposing)
    {
    }

    private sealed class Segment(ConcurrentBag<Segment> home) : IMemoryOwner<byte>
    {
        public Memory<byte> Memory { get; } = new byte[SegmentSize];

        public void Dispose() => home.Add(this);
    }
}
