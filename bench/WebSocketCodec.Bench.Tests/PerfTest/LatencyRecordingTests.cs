using HdrHistogram;
using WebSocketCodec.PerfTest;

namespace WebSocketCodec.Bench.Tests.PerfTest;

/// <summary>The perf and scale tools' latency recording on HdrHistogram: histograms recorded on several threads add
/// up to the same percentiles as one, values outside the range are clamped, and the [value, count] pairs a scale
/// client sends to its coordinator rebuild the same histogram.</summary>
public sealed class LatencyRecordingTests
{
    [Fact]
    public async Task HistogramsRecordedOnSeveralThreadsAddUpToTheSamePercentiles()
    {
        LongHistogram[] perThread = await Task.WhenAll(Enumerable.Range(0, 4).Select(t => Task.Run(() =>
        {
            LongHistogram histogram = LatencyRecording.Create();
            for (long v = 1; v <= 25_000; v++)
            {
                LatencyRecording.Record(histogram, (v * 4 - t) * 1000); // 1 µs .. 100 ms, each thread a quarter
            }

            return histogram;
        })));
        LongHistogram merged = LatencyRecording.Create();
        LongHistogram single = LatencyRecording.Create();
        foreach (LongHistogram histogram in perThread)
        {
            merged.Add(histogram);
        }

        for (long v = 1; v <= 100_000; v++)
        {
            LatencyRecording.Record(single, v * 1000);
        }

        Assert.Equal(100_000, merged.TotalCount);
        foreach (double p in new[] { 50, 90, 95, 99, 99.9, 100 })
        {
            Assert.Equal(LatencyRecording.Percentile(single, p), LatencyRecording.Percentile(merged, p));
            Assert.InRange(LatencyRecording.Percentile(merged, p), p * 1_000_000 * 0.999, p * 1_000_000 * 1.001); // three digits
        }
    }

    [Fact]
    public void TheConcurrentHistogramPairsRebuildTheHistogramAndOutOfRangeValuesAreClamped()
    {
        LongConcurrentHistogram recorded = LatencyRecording.CreateConcurrent();
        Parallel.For(0, 10_000, i => LatencyRecording.Record(recorded, i * 7919L));
        LatencyRecording.Record(recorded, -5);
        LatencyRecording.Record(recorded, long.MaxValue);

        LongHistogram rebuilt = LatencyRecording.Create();
        LatencyRecording.AddPairs(rebuilt, LatencyRecording.ToPairs(recorded));

        Assert.Equal(10_002, rebuilt.TotalCount);
        Assert.Equal(0, rebuilt.GetValueAtPercentile(0));
        Assert.Equal(recorded.GetMaxValue(), rebuilt.GetMaxValue());
        Assert.InRange(rebuilt.GetMaxValue(), LatencyRecording.HighestNanoseconds, LatencyRecording.HighestNanoseconds * 1.001);
        Assert.Equal(LatencyRecording.Percentile(recorded, 99), LatencyRecording.Percentile(rebuilt, 99));
        Assert.Equal(0, LatencyRecording.Percentile(LatencyRecording.Create(), 99));
    }
}
