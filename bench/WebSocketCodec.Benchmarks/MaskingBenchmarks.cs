using BenchmarkDotNet.Attributes;

namespace WebSocketCodec.Benchmarks;

/// <summary>Masking a buffer in place: SIMD (<see cref="WebSocketMask"/>) against a byte-at-a-time loop, the form
/// RFC 6455 §5.3 gives. The GB/s column is bytes per nanosecond.</summary>
[MemoryDiagnoser]
public class MaskingBenchmarks
{
    private const int Key = 0x3D21FA37;
    private byte[] _data = [];

    /// <summary>Buffer length in bytes.</summary>
    [Params(8, 125, 1000, 4096, 16384, 65536)]
    public int Length { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _data = WireFrames.Payload(Length);
        byte[] expected = (byte[])_data.Clone();
        Scalar();
        Simd();
        if (!expected.AsSpan().SequenceEqual(_data))
        {
            throw new InvalidOperationException("SIMD masking does not undo scalar masking.");
        }
    }

    [Benchmark(Baseline = true)]
    public int Scalar()
    {
        byte[] data = _data;
        for (int i = 0; i < data.Length; i++)
        {
            data[i] ^= (byte)(Key >> (8 * (i & 3)));
        }

        return data.Length;
    }

    [Benchmark]
    public int Simd() => WebSocketMask.Apply(_data, Key);
}
