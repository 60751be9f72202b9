using WebSocketCodec.Broadcast.Cluster;

namespace WebSocketCodec.Bench.Tests.Broadcast;

/// <summary>The broadcast tool's cluster mode, tiny: one room on three <c>samples/Chat --seeds</c> processes and on one,
/// 10 members a node, three publishers, 2 s. Every member must get every text in each publisher's order; between the
/// nodes a broadcast of 1 KiB must cost less than 300 bytes more than its payload per node pair (our binary frame: a
/// JSON or base64 encoding would cost over 600); the page and CSV are written. No time is asserted.</summary>
public sealed class ClusterModeSmokeTests
{
    [Fact]
    public async Task EveryMemberOnEveryNodeGetsEveryTextAndNodesSendAboutThePayload()
    {
        var options = new ClusterOptions
        {
            WebSocketsPerNode = 10, Payloads = [1024], Rate = 20, Duration = TimeSpan.FromSeconds(2), IdleWindow = TimeSpan.FromSeconds(2), Repeat = 1,
        };
        string chat = typeof(WebSocketCodec.Samples.Chat.ChatRooms).Assembly.Location;
        var results = new List<ClusterMeasurement>();
        foreach (string variant in new[] { ClusterRunner.Single, ClusterRunner.Cluster })
        {
            results.Add(await ClusterRunner.RunAsync(variant, 1024, options, chat, _ => { }));
        }

        foreach (ClusterMeasurement result in results)
        {
            Assert.True(result.IsClean, result.ToString());
            Assert.Equal(3 * 40 * 33, result.Expected); // 3 publishers × 40 texts × (30 members + 3 publishers)
            Assert.True(result.P99 >= result.P50 && result.P50 > TimeSpan.Zero, result.ToString());
        }

        Assert.Null(results[0].BytesPerBroadcastPerNodePair);
        Assert.InRange(results[1].BytesPerBroadcastPerNodePair!.Value, 1024, 1024 + 300);

        string directory = Directory.CreateTempSubdirectory("cluster-smoke").FullName;
        try
        {
            string prefix = Path.Combine(directory, "cluster-smoke");
            await ClusterPage.WriteAsync(prefix, results, options, "broadcast cluster --smoke", CancellationToken.None);
            string page = await File.ReadAllTextAsync(prefix + ".md");
            Assert.Contains("<!-- stamp:", page, StringComparison.Ordinal);
            Assert.Contains("| single | 1 | 33 |", page, StringComparison.Ordinal);
            Assert.Contains("| cluster | 3 | 33 |", page, StringComparison.Ordinal);
            Assert.Contains("Targets: p99 across the cluster / on one node = ", page, StringComparison.Ordinal);
            Assert.Equal(3, (await File.ReadAllTextAsync(prefix + ".csv")).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length);
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
