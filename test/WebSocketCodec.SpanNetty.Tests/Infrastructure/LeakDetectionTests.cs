using System.Runtime.CompilerServices;
using DotNetty.Buffers;

namespace WebSocketCodec.SpanNetty.Tests.Infrastructure;

/// <summary>The harness itself: a buffer dropped without a release is reported, so the checks after every test mean
/// something.</summary>
public sealed class LeakDetectionTests
{
    [Fact]
    public void ABufferNeverReleasedIsReportedByTheDetector()
    {
        Leak();
        List<string> reports = LeakDetection.CollectReports();
        Assert.Contains(reports, report => report.Contains("LEAK", StringComparison.Ordinal));
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Leak()
    {
        IByteBuffer buffer = PooledByteBufferAllocator.Default.Buffer(64);
        buffer.WriteByte(1);
    }
}
