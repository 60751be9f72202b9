using System.Text;
using System.Text.Unicode;
using BenchmarkDotNet.Attributes;

namespace WebSocketCodec.Benchmarks;

/// <summary>UTF-8 validation of a whole buffer: <see cref="Utf8.IsValid(ReadOnlySpan{byte})"/> against our incremental
/// validator fed the whole buffer, and fed it in 4 pieces cut inside multi-byte sequences.</summary>
[MemoryDiagnoser]
public class Utf8Benchmarks
{
    private byte[] _text = [];
    private int[] _cuts = [];
    private Utf8Validator _validator;

    /// <summary>Length in bytes.</summary>
    [Params(64, 1000, 65536)]
    public int Length { get; set; }

    /// <summary>ASCII only, or a mix of 1- to 4-byte characters.</summary>
    [Params("ascii", "mixed")]
    public string Text { get; set; } = "ascii";

    [GlobalSetup]
    public void Setup()
    {
        string unit = Text == "ascii" ? "The quick brown fox jumps over the lazy dog. " : "Grüße κόσμε 中文 😀 ok ";
        var builder = new StringBuilder();
        while (Encoding.UTF8.GetByteCount(builder.ToString()) < Length)
        {
            builder.Append(unit);
        }

        byte[] bytes = Encoding.UTF8.GetBytes(builder.ToString());
        int end = Length;
        while (end > 0 && (bytes[end - 1] & 0xC0) == 0x80 || end > 0 && bytes[end - 1] >= 0xC0)
        {
            end--; // do not end on a cut sequence
        }

        _text = bytes[..end];
        _cuts = [_text.Length / 4 + 1, _text.Length / 2 + 1, 3 * _text.Length / 4 + 1];
        if (!IsValid() || !Incremental() || !IncrementalInPieces())
        {
            throw new InvalidOperationException("The benchmark text is not valid UTF-8.");
        }
    }

    [Benchmark(Baseline = true)]
    public bool IsValid() => Utf8.IsValid(_text);

    [Benchmark]
    public bool Incremental()
    {
        _validator.Reset();
        return _validator.Append(_text, isFinal: true);
    }

    [Benchmark]
    public bool IncrementalInPieces()
    {
        _validator.Reset();
        ReadOnlySpan<byte> text = _text;
        int start = 0;
        foreach (int cut in _cuts)
        {
            int at = Math.Min(cut, text.Length);
            if (!_validator.Append(text[start..at], isFinal: false))
            {
                return false;
            }

            start = at;
        }

        return _validator.Append(text[start..], isFinal: true);
    }
}
