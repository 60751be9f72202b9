using System.Diagnostics;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>
/// Autobahn 12.x-like: for each payload kind and auto-fragmentation size, every message size from 16 B to 128 KiB on a
/// websocket of its own with the browsers' offer, <see cref="DeflateDataSets.MessagesPerCase"/> messages each (20 in
/// CI, 1000 with <c>WSC_DEFLATE_FULL=1</c>), compressed by the test's client and split into frames of that size
/// (sizes the message does not exceed are left to the unfragmented case), echoed compressed by our server.
/// </summary>
public sealed class DeflateDataSetTests(ITestOutputHelper output)
{
    private const string Offer = "permessage-deflate; client_max_window_bits";

    public static TheoryData<PayloadKind, int> Rows()
    {
        var rows = new TheoryData<PayloadKind, int>();
        foreach (PayloadKind kind in Enum.GetValues<PayloadKind>())
        {
            foreach (int fragment in DeflateDataSets.Fragments)
            {
                rows.Add(kind, fragment);
            }
        }

        return rows;
    }

    [Theory]
    [MemberData(nameof(Rows))]
    public async Task EveryMessageSizeEchoesCompressed(PayloadKind kind, int fragment)
    {
        await using DeflateEchoHost host = await DeflateEchoHost.StartAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 });
        int count = DeflateDataSets.MessagesPerCase;
        int cases = 0;
        long start = Stopwatch.GetTimestamp();
        foreach (int size in DeflateDataSets.Sizes.Where(size => fragment == 0 || fragment < size))
        {
            Assert.Equal("permessage-deflate", await DeflateCase.RunAsync(host.EndPoint, Offer, null, kind, size, fragment, count));
            cases++;
        }

        for (int i = 0; i < cases; i++)
        {
            WebSocketCloseInfo end = await host.NextEndAsync();
            Assert.True(end.IsClean, end.ToString());
        }

        await host.AssertPoolBalancedAsync();
        output.WriteLine($"12.x {kind} frames of {fragment}: {cases} cases, {cases * count} messages, {Stopwatch.GetElapsedTime(start).TotalMilliseconds:F0} ms");
    }
}
